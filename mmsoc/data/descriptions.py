"""Reference descriptions of memes: ``DIR/descriptions/{image_description,social_context}_{split}.jsonl``.

Rows ``{id, image, reference}`` and optionally ``text`` (the meme text); ``image`` is relative to
``DIR`` itself, so the references can point at memes of any dataset folder
(e.g. ``hateful_memes/img/01235.png``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from mmsoc.data.result import ItemProblem, LoadResult
from mmsoc.data.tables import Row, collect_examples, existing_file, require, resolve_image, text_value
from mmsoc.core.io import read_jsonl
from mmsoc.core.records import Example

FOLDER = "descriptions"
DATASET = "memes"


def load(task_id: str, root: Path, split: str, limit: int | None = None) -> LoadResult:
    """Load ``root/{task_id}_{split}.jsonl`` (``root`` is ``DIR/descriptions``; images under ``DIR``)."""
    path = existing_file(root, f"{task_id}_{split}.jsonl")
    return from_rows(task_id, read_jsonl(path), path, root.parent, split, limit)


def from_rows(task_id: str, rows: Iterable[tuple[int, Row]], source: str | os.PathLike, image_root: Path,
              split: str, limit: int | None = None) -> LoadResult:
    """Generation examples: label is the reference description."""

    def example(line: int, row: Row, problems: list[ItemProblem]) -> Example:
        item_id = str(require(row, "id", source, line))
        reference = str(require(row, "reference", source, line)).strip()
        image = str(require(row, "image", source, line))
        images = resolve_image(image_root, image, item_id, source, line, "image", problems)
        meta = {"dataset": DATASET, "split": split}
        return Example(item_id, task_id, text_value(row, ("text",)), images, reference, meta)

    return collect_examples(rows, limit, example)
