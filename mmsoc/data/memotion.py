"""Memotion 7k: ``DIR/memotion/labels.csv`` (or ``labels.xlsx``) and ``DIR/memotion/images/``.

Columns: ``image_name, text_ocr, text_corrected, humour, sarcasm, offensive, motivational,
overall_sentiment`` and optionally ``split`` (train/dev/test). Per-split files
``labels_{split}.csv``/``.xlsx`` are used instead when present. Without a split column a row's split is
fixed by a hash of its image name (80% train, 10% dev, 10% test), so it is the same on every machine.
Raw intensity labels collapse to the MM-Soc labels (see ``LABEL_MAPS``). The meme text is
``text_corrected``, or ``text_ocr`` where that is empty; it is also the OCR reference.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

from mmsoc.data.result import ItemProblem, LoadResult
from mmsoc.data.tables import Row, collect_examples, existing_file, read_rows, require, resolve_image, text_value
from mmsoc.core.io import InputError
from mmsoc.core.records import Example

FOLDER = "memotion"
DATASET = "Memotion"
IMAGES = "images"
TEXT_COLUMNS = ("text_corrected", "text_ocr")
COLUMNS = {"humor": "humour", "sarcasm": "sarcasm", "offensive": "offensive", "sentiment": "overall_sentiment"}
"""Task id -> Memotion label column."""

LABEL_MAPS: dict[str, dict[str, str]] = {
    "humor": {"hilarious": "humorous", "very_funny": "humorous", "funny": "humorous", "not_funny": "not_humorous"},
    "sarcasm": {"general": "sarcastic", "twisted_meaning": "sarcastic", "very_twisted": "sarcastic",
                "not_sarcastic": "not_sarcastic"},
    "offensive": {"slight": "offensive", "very_offensive": "offensive", "hateful_offensive": "offensive",
                  "not_offensive": "not_offensive"},
    "sentiment": {"very_negative": "negative", "negative": "negative", "neutral": "neutral",
                  "positive": "positive", "very_positive": "positive"},
}
"""Raw Memotion label -> MM-Soc label, per task."""


def load(task_id: str, root: Path, split: str, limit: int | None = None) -> LoadResult:
    """Load one split of ``root`` (``DIR/memotion``)."""
    per_split = [root / f"labels_{split}{ext}" for ext in (".csv", ".xlsx")]
    path = next((p for p in per_split if p.is_file()), None) or existing_file(root, "labels.csv", "labels.xlsx")
    return from_rows(task_id, read_rows(path), path, root / IMAGES, split, limit, filter_split=path.stem == "labels")


def from_rows(task_id: str, rows: Iterable[tuple[int, Row]], source: str | os.PathLike, image_root: Path,
              split: str, limit: int | None = None, filter_split: bool = True) -> LoadResult:
    """Examples for a Memotion task or ``ocr`` from rows in the Memotion label-file format."""

    def example(line: int, row: Row, problems: list[ItemProblem]) -> Example | None:
        image = str(require(row, "image_name", source, line))
        if filter_split and row_split(row, image) != split:
            return None
        text = text_value(row, TEXT_COLUMNS)
        meta = {"dataset": DATASET, "split": split}
        if task_id == "ocr":
            item_id, label = f"{FOLDER}/{image}", str(require(row, TEXT_COLUMNS, source, line))
            text = ""
        else:
            item_id, label = image, memotion_label(task_id, row, source, line)
        images = resolve_image(image_root, image, item_id, source, line, "image_name", problems)
        return Example(item_id, task_id, text, images, label, meta)

    return collect_examples(rows, limit, example)


def row_split(row: Row, image_name: str) -> str:
    """The row's ``split`` column, or a stable hash split of its image name when there is none."""
    split = str(row.get("split") or "").strip()
    if split:
        return split
    bucket = int(hashlib.sha256(image_name.encode()).hexdigest(), 16) % 10
    return "train" if bucket < 8 else ("dev" if bucket == 8 else "test")


def memotion_label(task_id: str, row: Row, source: str | os.PathLike, line: int) -> str:
    """The MM-Soc label of ``task_id`` for one Memotion row; InputError for an unknown value."""
    column = COLUMNS[task_id]
    raw = str(require(row, column, source, line)).strip().lower().replace(" ", "_")
    try:
        return LABEL_MAPS[task_id][raw]
    except KeyError:
        known = ", ".join(LABEL_MAPS[task_id])
        raise InputError(source, f"unknown value {raw!r} (expected one of {known})", line=line, field=column) from None
