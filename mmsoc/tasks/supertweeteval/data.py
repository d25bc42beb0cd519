"""SuperTweetEval as the hub repository ``cardiffnlp/super_tweeteval`` stores it: JSON Lines per task and split.

``DIR/data/<task>/{train,validation,test}.jsonl`` (``--split dev`` reads ``validation``), one object per
line with the task's fields (see data_cards/supertweeteval.md). Gold values, read by the task's kind
(``read_gold``), become:

* ``gold_label`` (sentiment, hate, emoji): the class name; names come from ``<task>/map.txt`` when the
  folder has one (lines ``id,name``, as the hub stores them for hate and emoji), else from the task table.
  ``tweet_emoji`` needs its ``map.txt``: its 100 emoji are not in the table (they could not be checked);
* ``gold_label_list`` (topic, emotion): the names of the 1s of the indicator vector (``map.txt`` likewise);
* ``gold_label_binary`` (NERD, TempoWiC): ``no`` / ``yes``;
* ``gold_score`` (intimacy, similarity): the number (NaN and infinities refused); ``gold_label_str`` (QA, QG):
  the text (a number or other non-text refused, as are non-text values of the text fields);
* ``gold_label_sequence`` + ``text_tokenized`` (NER): ``{"tokens": [...], "tags": [...]}``.

Item ids are the 0-based line numbers among the objects, so a file of one prediction per line lines up.
"""

from __future__ import annotations

from pathlib import Path

from mmsoc.core.io import InputError, read_jsonl
from mmsoc.core.records import Example
from mmsoc.tasks.data.dataset import PAPER_OPTIONS, Dataset, LoadOptions
from mmsoc.tasks.data.result import LoadResult
from mmsoc.tasks.data.rows import existing_file
from mmsoc.tasks.kinds._ste import ste_kind
from mmsoc.tasks.registry import short_name
from mmsoc.tasks.spec import TaskSpec
from mmsoc.tasks.supertweeteval.sample import write_sample
from mmsoc.tasks.supertweeteval.tasks import FOLDER, SUITE

SPLIT_FILES = {"dev": "validation"}
INPUT_FIELDS = ("text", "text_1", "text_2", "target", "definition", "context")
"""Fields a prompt may quote."""


def label_names(spec: TaskSpec, folder: Path) -> tuple[str, ...]:
    """Class names by id: ``folder/map.txt`` (``id,name`` lines) if present, else the table's."""
    path = folder / "map.txt"
    if not path.is_file():
        if not spec.labels:
            raise InputError(
                path,
                f"{short_name(spec.id)} takes its label names from this file (lines 'id,name'); "
                "it is not in the folder",
            )
        return spec.labels
    names: list[str] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if not line.strip():
            continue
        parts = line.split(",")
        if len(parts) < 2 or parts[0].strip() != str(len(names)):
            raise InputError(path, f"expected 'id,name' with ids 0, 1, ... in order, got {line!r}", line=number)
        names.append(parts[1])
    return tuple(names)


def load(
    spec: TaskSpec, root: Path, split: str, limit: int | None = None, options: LoadOptions = PAPER_OPTIONS
) -> LoadResult:
    """Items of ``spec`` from ``root/<task>/<split>.jsonl`` (``root`` is ``DIR/data``)."""
    folder = root / short_name(spec.id)
    path = existing_file(folder, f"{SPLIT_FILES.get(split, split)}.jsonl")
    kind = ste_kind(spec)
    names = label_names(spec, folder) if kind.named_labels else spec.labels
    result = LoadResult()
    for index, (line, row) in enumerate(read_jsonl(path)):
        if limit is not None and len(result.examples) >= limit:
            break
        fields = {name: row[name] for name in INPUT_FIELDS if row.get(name) is not None}
        if "text" not in fields and "text_1" not in fields:
            raise InputError(path, "missing", line=line, field="text")
        for name, value in fields.items():
            if not isinstance(value, str):
                raise InputError(
                    path, f"expected text, got {type(value).__name__} {value!r:.60}", line=line, field=name
                )
        try:
            label = kind.read_gold(row, names)
        except (KeyError, IndexError, TypeError, ValueError) as err:
            raise InputError(path, f"bad gold value ({err})", line=line, field=kind.gold_field) from None
        text = fields.get("text") or f"{fields['text_1']}\n{fields.get('text_2', '')}"
        result.examples.append(
            Example(str(index), spec.id, text, (), label, {"dataset": "SuperTweetEval", "split": split, **fields})
        )
    return result


DATASET = Dataset(FOLDER, load, write_sample=write_sample, suite=SUITE)
