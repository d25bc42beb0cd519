"""Hateful Memes: ``DIR/hateful_memes/{train,dev,test}.jsonl`` with rows ``{id, img, label, text}``.

``img`` is relative to ``DIR/hateful_memes`` (e.g. ``img/01235.png``); ``label`` 1 = hateful, 0 = not.
Serves the ``hate`` task and half of ``ocr`` (the meme text is the OCR reference).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from mmsoc.data.result import ItemProblem, LoadResult
from mmsoc.data.tables import Row, collect_examples, existing_file, require, resolve_image, text_value
from mmsoc.core.io import InputError, read_jsonl
from mmsoc.core.records import Example

FOLDER = "hateful_memes"
DATASET = "HatefulMemes"
LABELS = {0: "not_hateful", 1: "hateful"}


def load(task_id: str, root: Path, split: str, limit: int | None = None) -> LoadResult:
    """Load ``root/{split}.jsonl`` (``root`` is ``DIR/hateful_memes``)."""
    path = existing_file(root, f"{split}.jsonl")
    return from_rows(task_id, read_jsonl(path), path, root, split, limit)


def from_rows(task_id: str, rows: Iterable[tuple[int, Row]], source: str | os.PathLike, image_root: Path,
              split: str, limit: int | None = None) -> LoadResult:
    """Examples for ``hate`` or ``ocr`` from rows in the Hateful Memes JSONL format."""

    def example(line: int, row: Row, problems: list[ItemProblem]) -> Example:
        item_id = str(require(row, "id", source, line))
        image = str(require(row, "img", source, line))
        text = text_value(row, ("text",))
        meta = {"dataset": DATASET, "split": split}
        if task_id == "ocr":
            label = str(require(row, "text", source, line))
            item_id, text = f"{FOLDER}/{item_id}", ""
        else:
            label = _label(row, source, line)
        images = resolve_image(image_root, image, item_id, source, line, "img", problems)
        return Example(item_id, task_id, text, images, label, meta)

    return collect_examples(rows, limit, example)


def _label(row: Row, source: str | os.PathLike, line: int) -> str:
    raw = row.get("label")
    try:
        return LABELS[int(raw)]
    except (TypeError, ValueError, KeyError):
        hint = " (unlabelled split? the original test.jsonl has no labels)" if raw is None else ""
        raise InputError(source, f"expected 0 or 1, got {raw!r}{hint}", line=line, field="label") from None
