"""The field mapping of a generic multiple-choice file (``--fields`` / ``--schema``), the common shapes
recognised without one, the rows of JSON Lines, JSON, CSV, TSV and Parquet files (``desiq.formats.mcqa``
turns them into items) and the layout a file was read in (``desiq.formats.mcqa_write`` writes items back
in it)."""

from __future__ import annotations

import csv
import functools
import io
import json
import os
import re
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
class SourceRow:
    """A row an item was read from: its line (the record's number in JSON arrays and Parquet) and its cells."""

    line: int
    cells: dict[str, Any]


@dataclass(frozen=True)
class TableText:
    """How a CSV or TSV file was written, so that what a command did not change is written back byte for
    byte: its line ending (that of its header) and each record's cells as they stand in the file (quotes
    and all), by line."""

    newline: str
    cells: dict[int, tuple[str, ...]]


@dataclass(frozen=True)
class Layout:
    """How a generic file was laid out, to write items back in it: its container, its columns, how its
    answers read (``index`` with a base, ``letter`` or ``text``; None: unlabelled), the row each item
    came from, by item id, and in CSV and TSV the file's text."""

    container: str
    columns: tuple[str, ...]
    answer: tuple[str, int] | None
    rows: dict[str, SourceRow]
    text: TableText | None = None


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


Rows = list[tuple[int, dict[str, Any] | InputError]]
"""(line, row or why it cannot be read) of each record of a file."""


def table_rows(path: Path) -> tuple[list[str], Rows, TableText | None]:
    """The columns and rows of a JSON Lines, JSON, CSV, TSV or Parquet file; in CSV and TSV also its text."""
    container = container_of(path)
    if container in ("csv", "tsv"):
        return _delimited_rows(path, TABLES[f".{container}"])
    if container == "parquet":
        return (*_parquet_rows(path), None)
    if container == "json":
        return (*_json_rows(path), None)
    rows = list(read_jsonl(path, skip_bad=True))
    columns = list(dict.fromkeys(k for _, row in rows if isinstance(row, dict) for k in row))
    return columns, rows, None


class _Records:
    """The physical lines of a text, line endings kept, as ``csv.reader`` takes them, remembering those
    taken since the last record."""

    def __init__(self, text: str):
        self._lines = io.StringIO(text, newline="")
        self.taken: list[str] = []

    def __iter__(self) -> _Records:
        return self

    def __next__(self) -> str:
        line = next(self._lines)
        self.taken.append(line)
        return line

    def record(self) -> str:
        """The text of the record read last, and forget it."""
        text = "".join(self.taken)
        self.taken.clear()
        return text


def _delimited_rows(path: Path, delimiter: str) -> tuple[list[str], Rows, TableText]:
    lines = _Records(read_text(path))
    reader = csv.reader(lines, delimiter=delimiter)
    columns = next(reader, [])
    header = lines.record()
    if len(set(columns)) != len(columns):
        raise InputError(path, f"repeated column names in the header {columns}", line=1)
    text = TableText(header[len(header.rstrip("\r\n")) :] or "\r\n", {})
    _keep_cells(text, 1, header, columns, delimiter)
    rows: Rows = []
    start = reader.line_num + 1
    for cells in reader:
        record = lines.record()
        if cells and len(cells) != len(columns):
            rows.append((start, InputError(path, "not as many cells as header columns", line=start)))
        elif cells:
            rows.append((start, dict(zip(columns, cells))))
            _keep_cells(text, start, record, cells, delimiter)
        start = reader.line_num + 1
    return columns, rows, text


def _keep_cells(text: TableText, line: int, record: str, cells: list[str], delimiter: str) -> None:
    """Keep the record's cells as they stand in the file where each of them reads as the cell it was read as."""
    raw = _raw_cells(record[: len(record.rstrip("\r\n"))], delimiter)
    if len(raw) == len(cells) and all(_cell_value(r, delimiter) == cell for r, cell in zip(raw, cells)):
        text.cells[line] = raw


@functools.cache
def _cell_pattern(delimiter: str) -> re.Pattern[str]:
    """One cell of a CSV record as it stands, quoted (doubled quotes inside; anything up to the delimiter
    after it) or not, and the delimiter that ends it."""
    other = f"[^{re.escape(delimiter)}]*"
    return re.compile(f'("(?:[^"]|"")*"{other}|{other}){re.escape(delimiter)}')


def _raw_cells(record: str, delimiter: str) -> tuple[str, ...]:
    """A CSV record's cells as they stand in its text, quotes kept."""
    return tuple(_cell_pattern(delimiter).findall(record + delimiter))


def _cell_value(raw: str, delimiter: str) -> str:
    """What ``csv.reader`` reads a cell's text as (an unquoted cell: itself)."""
    if not raw.startswith('"'):
        return raw
    return next(csv.reader(io.StringIO(raw, newline=""), delimiter=delimiter), [""])[0]


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
