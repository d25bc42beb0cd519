"""SuperTweetEval as the hub repository ``cardiffnlp/super_tweeteval`` stores it: JSON Lines per task and split.

``DIR/data/<task>/{train,validation,test}.jsonl`` (``--split dev`` reads ``validation``), one object per
line with the task's fields (see data_cards/supertweeteval.md). Gold values become:

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
from typing import Any

from mmsoc.core.io import InputError, read_jsonl
from mmsoc.core.records import Example
from mmsoc.tasks.data.dataset import PAPER_OPTIONS, Dataset, LoadOptions
from mmsoc.tasks.data.result import LoadResult
from mmsoc.tasks.data.rows import existing_file
from mmsoc.tasks.kinds.base import finite_number, text_value
from mmsoc.tasks.registry import short_name
from mmsoc.tasks.spec import TaskSpec
from mmsoc.tasks.supertweeteval.sample import write_sample
from mmsoc.tasks.supertweeteval.tasks import FOLDER, NER_TAGS, SUITE, YES_NO

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
    names = (
        label_names(spec, folder)
        if spec.kind in ("ste_sentiment", "ste_hate", "ste_emoji", "ste_multilabel")
        else spec.labels
    )
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
            label = gold(spec, row, names)
        except (KeyError, IndexError, TypeError, ValueError) as err:
            raise InputError(path, f"bad gold value ({err})", line=line, field=_gold_field(spec)) from None
        text = fields.get("text") or f"{fields['text_1']}\n{fields.get('text_2', '')}"
        result.examples.append(
            Example(str(index), spec.id, text, (), label, {"dataset": "SuperTweetEval", "split": split, **fields})
        )
    return result


def _gold_field(spec: TaskSpec) -> str:
    return {
        "ste_sentiment": "gold_label",
        "ste_hate": "gold_label",
        "ste_emoji": "gold_label",
        "ste_multilabel": "gold_label_list",
        "ste_yes_no": "gold_label_binary",
        "ste_score": "gold_score",
        "ste_qa": "gold_label_str",
        "ste_qg": "gold_label_str",
        "ste_ner": "gold_label_sequence",
    }[spec.kind]


def gold(spec: TaskSpec, row: dict[str, Any], names: tuple[str, ...]) -> Any:
    """The reference of one row (raises KeyError/IndexError/TypeError/ValueError on a malformed one)."""
    value = row[_gold_field(spec)]
    if spec.kind in ("ste_sentiment", "ste_hate", "ste_emoji"):
        return names[_index(value)]
    if spec.kind == "ste_multilabel":
        if len(value) != len(names):
            raise ValueError(f"{len(value)} indicators for {len(names)} labels")
        return [name for name, on in zip(names, value) if int(on) == 1]
    if spec.kind == "ste_yes_no":
        return YES_NO[_index(value)]
    if spec.kind == "ste_score":
        return finite_number(value)
    if spec.kind == "ste_ner":
        tokens = [str(token) for token in row["text_tokenized"]]
        tags = [NER_TAGS[_index(tag)] for tag in value]
        if len(tags) != len(tokens):
            raise ValueError(f"{len(tags)} tags for {len(tokens)} tokens")
        return {"tokens": tokens, "tags": tags}
    return text_value(value)


def _index(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)) or int(value) < 0:
        raise ValueError(f"expected a class id, got {value!r}")
    return int(value)


DATASET = Dataset(FOLDER, load, write_sample=write_sample, suite=SUITE)
