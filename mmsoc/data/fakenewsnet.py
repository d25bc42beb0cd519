"""FakeNewsNet multimodal: ``DIR/fakenewsnet/{politi,gossip}_{train,test}.csv`` and images.

Columns: an id (``id``, or the unnamed index column; the line number otherwise), the news text
(``content``, ``text`` or ``title``), the image file name (``image``) and ``label`` where, as in the
released CSVs, 0 = fake and 1 = real; MM-Soc flips it so that fake is the positive class. Images live
in ``DIR/fakenewsnet/images/{politi,gossip}_{split}/``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from mmsoc.data.result import ItemProblem, LoadResult
from mmsoc.data.tables import Row, collect_examples, existing_file, read_csv, require, resolve_image, text_value
from mmsoc.core.io import InputError
from mmsoc.core.records import Example

FOLDER = "fakenewsnet"
IMAGES = "images"
PREFIXES = {"misinfo_politifact": "politi", "misinfo_gossipcop": "gossip"}
DATASETS = {"misinfo_politifact": "PolitiFact", "misinfo_gossipcop": "GossipCop"}
TEXT_COLUMNS = ("content", "text", "title")
CSV_FAKE_VALUE = 0
"""Raw ``label`` value that marks fake news in the released CSVs."""


def load(task_id: str, root: Path, split: str, limit: int | None = None) -> LoadResult:
    """Load ``root/{prefix}_{split}.csv`` (``root`` is ``DIR/fakenewsnet``)."""
    name = f"{PREFIXES[task_id]}_{split}"
    path = existing_file(root, f"{name}.csv")
    return from_rows(task_id, read_csv(path), path, root / IMAGES / name, split, limit)


def from_rows(task_id: str, rows: Iterable[tuple[int, Row]], source: str | os.PathLike, image_root: Path,
              split: str, limit: int | None = None, fake_value: int = CSV_FAKE_VALUE) -> LoadResult:
    """Examples for a misinformation task from rows in the FakeNewsNet CSV format."""

    def example(line: int, row: Row, problems: list[ItemProblem]) -> Example:
        item_id = text_value(row, ("id", "")) or f"line{line}"
        text = str(require(row, TEXT_COLUMNS, source, line)).strip()
        image = str(require(row, "image", source, line))
        raw = row.get("label")
        try:
            value = int(float(raw))
        except (TypeError, ValueError):
            value = None
        if value not in (0, 1):
            raise InputError(source, f"expected 0 or 1, got {raw!r}", line=line, field="label")
        label = "fake" if value == fake_value else "true"
        images = resolve_image(image_root, image, item_id, source, line, "image", problems)
        meta = {"dataset": DATASETS[task_id], "split": split}
        return Example(item_id, task_id, text, images, label, meta)

    return collect_examples(rows, limit, example)
