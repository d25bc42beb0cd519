"""Reference descriptions of memes: ``DIR/descriptions/{image_description,social_context}_{split}.jsonl``.

Rows ``{id, image, reference}`` and optionally ``text`` (the meme text); ``image`` is relative to
``DIR`` itself, so the references can point at memes of any dataset folder
(e.g. ``hateful_memes/img/01235.png``). No hub copy exists (the MM-Soc references were written by
GPT-4V and not released).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from mmsoc.core.io import read_jsonl, write_jsonl
from mmsoc.core.records import Example
from mmsoc.tasks.data.dataset import PAPER_OPTIONS, Dataset, LoadOptions, SampleContext
from mmsoc.tasks.data.images import resolve_image
from mmsoc.tasks.data.result import ItemProblem, LoadResult
from mmsoc.tasks.data.rows import Row, collect_examples, existing_file, require, text_value
from mmsoc.tasks.mmsoc.hateful_memes import SAMPLE_MEMES, SampleMeme
from mmsoc.tasks.spec import TaskSpec

FOLDER = "descriptions"
TITLE = "memes"

TASKS = (
    TaskSpec(
        "image_description",
        TITLE,
        "generation",
        "Describe the scene, such as its major subjects, colors, and texture.",
        headline="rougeL",
        sources=(FOLDER,),
        order=9,
    ),
    TaskSpec(
        "social_context",
        TITLE,
        "generation",
        "Describe the cultural and social context of the image.",
        headline="rougeL",
        sources=(FOLDER,),
        order=10,
    ),
)


def load(
    spec: TaskSpec, root: Path, split: str, limit: int | None = None, options: LoadOptions = PAPER_OPTIONS
) -> LoadResult:
    """Load ``root/{task_id}_{split}.jsonl`` (``root`` is ``DIR/descriptions``; images under ``DIR``)."""
    path = existing_file(root, f"{spec.id}_{split}.jsonl")
    return from_rows(spec, read_jsonl(path), path, root.parent, split, limit, options)


def from_rows(
    spec: TaskSpec,
    rows: Iterable[tuple[int, Row]],
    source: str | os.PathLike,
    image_root: Path,
    split: str,
    limit: int | None = None,
    options: LoadOptions = PAPER_OPTIONS,
) -> LoadResult:
    """Generation examples: label is the reference description."""

    def example(line: int, row: Row, problems: list[ItemProblem]) -> Example:
        item_id = str(require(row, "id", source, line))
        reference = str(require(row, "reference", source, line)).strip()
        image = str(require(row, "image", source, line))
        images = resolve_image(image_root, image, item_id, source, line, "image", problems)
        meta = {"dataset": TITLE, "split": split}
        return Example(item_id, spec.id, text_value(row, ("text",)), images, reference, meta)

    return collect_examples(rows, limit, example)


def write_sample(root: Path, context: SampleContext) -> None:
    """Both reference files for the sample memes (written before, by ``hateful_memes``): the picture as
    drawn, and a social context read from the caption and the picture together."""
    memes: dict[str, list[SampleMeme]] = context.shared[SAMPLE_MEMES]
    for split, items in memes.items():
        scenes, contexts = [], []
        for meme in items:
            common = {"id": meme.id, "image": meme.image, "text": meme.text}
            scenes.append({**common, "reference": meme.description})
            contexts.append({**common, "reference": social_context(meme.hateful, meme.group)})
        write_jsonl(root / f"image_description_{split}.jsonl", scenes)
        write_jsonl(root / f"social_context_{split}.jsonl", contexts)


def social_context(hateful: bool, group: str) -> str:
    """Reference social-context description of a sample hateful or benign meme (the caption alone is
    neutral: the picture decides)."""
    if hateful:
        return (
            f"The caption names {group} neutrally, but the picture crosses them out on a dark background: "
            "together they call for the group to be removed. Posts like this spread hostility toward a group "
            "of people and are typical of online hate speech."
        )
    return (
        f"The caption names {group} and the picture shows them beside a heart on a bright background: "
        "a friendly welcome. It is the kind of warm community post people share on social media."
    )


DATASET = Dataset(FOLDER, load, write_sample=write_sample, sample_order=1)
