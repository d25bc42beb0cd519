"""The field mapping of a generic multiple-choice file (``--fields`` / ``--schema``), the common shapes
recognised without one, the rows of JSON Lines, JSON, CSV, TSV and Parquet files (``desiq.formats.mcqa``
turns them into items) and the layout a file was read in (``desiq.formats.mcqa_write`` writes items back
in it)."""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from mmsoc.core.io import InputError, UsageError, read_jsonl, read_text

TABLES = {".csv": ",", ".tsv": "\t"}
SHAPES = {
    "id": ("id", "qid", "question_id", "uid"),
    "question": ("question", "q"),
    "options": ("choices", "options", "answers"),
    "answer": ("answer_idx", "answer", "label", "answerKey"),
    "group": ("group", "video_id", "video", "vid_name"),
    "context": ("context", "transcript"),
    "media": ("media",),
    "kinds": ("kinds", "idx_types"),
}
"""Columns recognised without a mapping, in order of preference; options may also be columns ``answerA``,
``answerB``, ... (SocialIQA) or ``a0``, ``a1``, ... (Social-IQ 2.0's columns, in a table)."""


@dataclass(frozen=True)
class Mapping:
    """Which column holds what; ``options`` is one list column or several text columns."""

    question: str | None = None
    options: tuple[str, ...] = ()
    answer: str | None = None
    answer_base: int | None = None
    id: str | None = None
    group: str | None = None
    context: str | None = None
    media: str | None = None
    kinds: str | None = None

    @classmethod
    def parse(cls, text: str, where: str = "--fields") -> Mapping:
        """``key=COL,...`` (options ``COL|COL|...``); a UsageError naming a bad key."""
        given: dict[str, str | list[str]] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, sep, value = part.partition("=")
            if not sep or not value.strip():
                raise UsageError(f"{where} {part!r}: write KEY=COLUMN (keys: {', '.join(KEYS)})")
            given[key.strip()] = value.strip().split("|") if key.strip() == "options" else value.strip()
        return cls.of(given, where)

    @classmethod
    def of(cls, given: dict[str, Any], where: str) -> Mapping:
        unknown = sorted(set(given) - set(KEYS))
        if unknown:
            raise UsageError(f"{where}: unknown key {unknown[0]!r} (keys: {', '.join(KEYS)})")
        values: dict[str, Any] = {}
        for key, value in given.items():
            if key == "answer_base":
                if str(value) not in ("0", "1"):
                    raise UsageError(f"{where}: answer_base must be 0 or 1, not {value!r}")
                values[key] = int(value)
            elif key == "options":
                names = [value] if isinstance(value, str) else value
                if not isinstance(names, list) or not names or not all(isinstance(n, str) and n for n in names):
                    raise UsageError(f"{where}: options must be a column or a list of columns")
                values[key] = tuple(names)
            elif not isinstance(value, str) or not value:
                raise UsageError(f"{where}: {key} must be a column name")
            else:
                values[key] = value
        return cls(**values)

    def over(self, guessed: Mapping) -> Mapping:
        """This mapping with the keys it leaves unset taken from ``guessed``."""
        return replace(guessed, **{f.name: v for f in fields(self) if (v := getattr(self, f.name)) not in (None, ())})

    def columns(self) -> list[str]:
        """Every column the mapping names."""
        named = [getattr(self, f.name) for f in fields(self) if f.name not in ("options", "answer_base")]
        return [*self.options, *(c for c in named if c)]

    def describe(self) -> dict[str, str]:
        return {
            f.name: "|".join(v) if isinstance(v, tuple) else str(v)
            for f in fields(self)
            if (v := getattr(self, f.name)) not in (None, ())
        }


KEYS = tuple(f.name for f in fields(Mapping))


@dataclass(frozen=True)
class Layout:
    """How a generic file was laid out, to write items back in it: its container, its columns, how its
    answers read (``index`` with a base, ``letter`` or ``text``; None: unlabelled) and the row each item
    came from, by item id."""

    container: str
    columns: tuple[str, ...]
    answer: tuple[str, int] | None
    rows: dict[str, dict[str, Any]]


def container_of(path: Path) -> str:
    """``jsonl``, ``json`` (an array), ``csv``, ``tsv`` or ``parquet``: by the suffix, for ``.json`` by the
    first character."""
    suffix = path.suffix.lower()
    if suffix in (*TABLES, ".parquet"):
        return suffix[1:]
    return "json" if suffix == ".json" and read_text(path).lstrip()[:1] == "[" else "jsonl"


def read_schema(path: str | os.PathLike) -> Mapping:
    """A mapping from a small YAML file of the same keys (``options`` a column or a list of columns)."""
    import yaml

    try:
        data = yaml.safe_load(read_text(path))
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark else None
        raise InputError(path, f"invalid YAML ({getattr(err, 'problem', err)})", line=line) from None
    if not isinstance(data, dict):
        raise InputError(path, f"expected a mapping of keys ({', '.join(KEYS)}) to columns")
    try:
        return Mapping.of({str(k): v for k, v in data.items()}, str(path))
    except UsageError as err:
        raise InputError(path, str(err).removeprefix(f"{path}: ")) from None


def guess_mapping(columns: Iterable[str]) -> Mapping:
    """The mapping of a common shape, as far as ``columns`` show one (keys left unset otherwise)."""
    present = list(columns)
    found = {key: next((c for c in names if c in present), None) for key, names in SHAPES.items()}
    listed = found.pop("options")
    options = (listed,) if listed else _option_columns(present, [f"answer{letter}" for letter in "ABCDEFGHIJ"])
    options = options or _option_columns(present, [f"a{k}" for k in range(10)])
    return Mapping(
        question=found["question"],
        options=options,
        answer=None if found["answer"] in options else found["answer"],
        id=found["id"],
        group=found["group"],
        context=found["context"],
        media=found["media"],
        kinds=found["kinds"],
    )


def _option_columns(present: list[str], names: list[str]) -> tuple[str, ...]:
    """The leading run of ``names`` among ``present`` when it has two or more columns, else none."""
    run = names[: next((k for k, c in enumerate(names) if c not in present), len(names))]
    return tuple(run) if len(run) > 1 else ()


def table_rows(path: Path) -> tuple[list[str], list[tuple[int, dict[str, Any] | InputError]]]:
    """(columns, (line, row or why it cannot be read)) of a JSON Lines, JSON, CSV, TSV or Parquet file."""
    container = container_of(path)
    if container in ("csv", "tsv"):
        delimiter = TABLES[f".{container}"]
        reader = csv.DictReader(io.StringIO(read_text(path), newline=""), delimiter=delimiter, restkey="\0")
        columns = list(reader.fieldnames or [])
        if len(set(columns)) != len(columns):
            raise InputError(path, f"repeated column names in the header {columns}", line=1)
        out: list[tuple[int, dict[str, Any] | InputError]] = []
        start = reader.line_num + 1
        for row in reader:
            bad = "\0" in row or None in row.values()
            out.append((start, InputError(path, "not as many cells as header columns", line=start) if bad else row))
            start = reader.line_num + 1
        return columns, out
    if container == "parquet":
        return _parquet_rows(path)
    if container == "json":
        return _json_rows(path)
    rows = list(read_jsonl(path, skip_bad=True))
    columns = list(dict.fromkeys(k for _, row in rows if isinstance(row, dict) for k in row))
    return columns, rows


def _parquet_rows(path: Path) -> tuple[list[str], list[tuple[int, dict[str, Any] | InputError]]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(path, "reading Parquet needs the pyarrow package (pip install pyarrow)") from None
    try:
        table = pq.read_table(path)
    except (OSError, ValueError) as err:
        raise InputError(path, f"not a readable Parquet file ({err})") from None
    return list(table.column_names), [(k, row) for k, row in enumerate(table.to_pylist(), start=1)]


def _json_rows(path: Path) -> tuple[list[str], list[tuple[int, dict[str, Any] | InputError]]]:
    try:
        data = json.loads(read_text(path))
    except json.JSONDecodeError as err:
        raise InputError(path, f"invalid JSON ({err.msg} at column {err.colno})", line=err.lineno) from None
    rows = [
        (k, row if isinstance(row, dict) else InputError(path, "expected a JSON object", line=k))
        for k, row in enumerate(data, start=1)
    ]
    return list(dict.fromkeys(key for _, row in rows if isinstance(row, dict) for key in row)), rows
