"""YouTube2000: ``DIR/youtube2000/{train,test}.jsonl`` and ``DIR/youtube2000/thumbnails/``.

Rows ``{id, title, description, thumbnail, topics}``: ``thumbnail`` is relative to
``DIR/youtube2000``; ``topics`` is a list (or comma-separated string) of the 62 topic names, written
either as names (``pop_music``) or as the YouTube API's Wikipedia URLs (``.../wiki/Pop_music``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from mmsoc.data.result import ItemProblem, LoadResult
from mmsoc.data.tables import Row, collect_examples, existing_file, require, resolve_image, text_value
from mmsoc.core.io import InputError, read_jsonl
from mmsoc.core.records import Example
from mmsoc.tasks.mmsoc.table import YOUTUBE_TOPICS

FOLDER = "youtube2000"
DATASET = "YouTube2000"
_TOPIC_ORDER = {topic: i for i, topic in enumerate(YOUTUBE_TOPICS)}


def load(task_id: str, root: Path, split: str, limit: int | None = None) -> LoadResult:
    """Load ``root/{split}.jsonl`` (``root`` is ``DIR/youtube2000``)."""
    path = existing_file(root, f"{split}.jsonl")
    return from_rows(task_id, read_jsonl(path), path, root, split, limit)


def from_rows(task_id: str, rows: Iterable[tuple[int, Row]], source: str | os.PathLike, image_root: Path,
              split: str, limit: int | None = None) -> LoadResult:
    """Tagging examples: text is title and description, label the topics in table order."""

    def example(line: int, row: Row, problems: list[ItemProblem]) -> Example:
        item_id = str(require(row, "id", source, line))
        title = str(require(row, "title", source, line)).strip()
        text = "\n".join(part for part in (title, text_value(row, ("description",))) if part)
        topics = parse_topics(require(row, "topics", source, line), source, line)
        thumbnail = str(require(row, "thumbnail", source, line))
        images = resolve_image(image_root, thumbnail, item_id, source, line, "thumbnail", problems)
        return Example(item_id, task_id, text, images, topics, {"dataset": DATASET, "split": split})

    return collect_examples(rows, limit, example)


def parse_topics(value: object, source: str | os.PathLike, line: int) -> list[str]:
    """Known topic names from a list or comma-separated string; InputError for an unknown one."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list):
        raise InputError(source, f"expected a list of topics, got {type(value).__name__}", line=line, field="topics")
    topics = set()
    for item in items:
        name = str(item).strip().rsplit("/wiki/", 1)[-1].lower().replace(" ", "_")
        if name not in _TOPIC_ORDER:
            raise InputError(source, f"unknown topic {item!r} (not one of the 62 YouTube topics)",
                             line=line, field="topics")
        topics.add(name)
    return sorted(topics, key=_TOPIC_ORDER.__getitem__)
