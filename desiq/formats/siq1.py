"""Questions in the shape of Social-IQ 1.0: several correct and several incorrect answers each.

The Social-IQ 1.0 release itself carries no question text (only BERT features of it, in
CMU-MultimodalSDK files), so this format is for question text in that shape, as JSON Lines::

    {"qid": "...", "q": "...", "vid_name": "...", "correct": ["...", ...], "incorrect": ["...", ...]}

It reads as the paper's **A4** construction: each correct answer with all the incorrect ones (4 items
per question in the release), the correct slot rotating so that no position is favoured; ``to_a2``
of those items is the **A2** construction, every (correct, incorrect) pair once (12 per question).
Read-only: perturbed items are written as Social-IQ 2.0 rows.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from desiq.formats import MCQAFormat, first_json_row, require_field
from desiq.records import CORRECT, MCQAItem, position_id
from mmsoc.core.io import InputError, read_jsonl

INCORRECT = "incorrect"


def a4_items(obj: dict[str, Any], position: int, path: str, line: int) -> list[MCQAItem]:
    """The A4 items of one question: answer c of ``correct`` with every ``incorrect`` one, at slot
    ``c mod (incorrect + 1)``; qids ``<qid>_a4_<c>``, ids ``<qid>_a4_<c>@<position>``."""
    qid, question = require_field(obj, "qid", str, path, line), require_field(obj, "q", str, path, line)
    video = require_field(obj, "vid_name", str, path, line)
    answers = {key: require_field(obj, key, list, path, line) for key in ("correct", INCORRECT)}
    for key, texts in answers.items():
        if not texts or not all(isinstance(t, str) for t in texts):
            raise InputError(path, "expected a non-empty list of strings", line=line, field=key)
        if len(set(texts)) != len(texts):
            raise InputError(path, "an answer is repeated", line=line, field=key)
    correct, incorrect = answers["correct"], answers[INCORRECT]
    both = sorted(set(correct) & set(incorrect))
    if both:
        raise InputError(path, f"{both[0]!r} is also a correct answer", line=line, field=INCORRECT)
    items = []
    for c, answer in enumerate(correct):
        slot = c % (len(incorrect) + 1)
        options, kinds = list(incorrect), [INCORRECT] * len(incorrect)
        options.insert(slot, answer)
        kinds.insert(slot, CORRECT)
        item_qid = f"{qid}_a4_{c}"
        items.append(
            MCQAItem(
                position_id(item_qid, position),
                item_qid,
                video,
                question,
                tuple(options),
                slot,
                tuple(kinds),
                obj.get("ts", ""),
            )
        )
    return items


def read_siq1(path: str | os.PathLike) -> list[MCQAItem]:
    path = str(path)
    items = [item for k, (line, obj) in enumerate(read_jsonl(path)) for item in a4_items(obj, k, path, line)]
    if not items:
        raise InputError(path, "no questions in file")
    return items


def _detect(path: Path) -> bool:
    row = first_json_row(path)
    return row is not None and "correct" in row and INCORRECT in row


FORMAT = MCQAFormat(
    "siq1",
    "Social-IQ 1.0 shaped JSON Lines with q, vid_name and lists correct, incorrect",
    frozenset({CORRECT, INCORRECT}),
    _detect,
    read_siq1,
    label=lambda _path, _reading: "Social-IQ 1.0 shaped JSON Lines",
)
