"""OCR on memes of two datasets: Hateful Memes and Memotion (their loaders give the meme text as
the reference and no text input for a task of the ``ocr`` kind)."""

from __future__ import annotations

from mmsoc.tasks.mmsoc.hateful_memes import FOLDER as HATEFUL_MEMES
from mmsoc.tasks.mmsoc.memotion import FOLDER as MEMOTION
from mmsoc.tasks.spec import TaskSpec

TASKS = (
    TaskSpec(
        "ocr",
        "HatefulMemes+Memotion",
        "ocr",
        "What is the text in the image? Use double quotes to enclose your answer.",
        headline="token_f1",
        group="ocr",
        sources=(HATEFUL_MEMES, MEMOTION),
        order=8,
    ),
)
