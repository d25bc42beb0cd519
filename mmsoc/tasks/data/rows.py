"""Row readers for the label files of the real datasets (JSONL, CSV, XLSX) and per-row helpers.

Every reader yields ``(line number, row dict)`` so that errors can name file, line and field;
:func:`collect_examples` turns rows into examples, recording the items it has to leave out.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from mmsoc.core.io import InputError, read_jsonl, read_text
from mmsoc.core.records import Example
from mmsoc.tasks.data.result import ItemProblem, LoadResult, SkipItem

Row = dict[str, Any]
RowBuilder = Callable[[int, Row, list[ItemProblem]], Example | None]
"""(line, row, problems) -> the row's example, or None to pass the row over; image problems go to
``problems``; :class:`SkipItem` leaves the item out with its problem recorded."""


def read_csv(path: str | os.PathLike) -> Iterator[tuple[int, Row]]:
    """Yield (first line of the record, row) for each CSV record; the header is line 1."""
    reader = csv.DictReader(io.StringIO(read_text(path), newline=""))
    start = reader.line_num + 1
    for row in reader:
        if None in row:
            columns = len(reader.fieldnames or ())
            raise InputError(path, f"{len(row[None]) + columns} values for {columns} columns", line=start)
        yield start, row
        start = reader.line_num + 1


def read_xlsx(path: str | os.PathLike) -> Iterator[tuple[int, Row]]:
    """Yield (sheet row number, row) for the first sheet of a workbook; the header is row 1."""
    from openpyxl import load_workbook

    try:
        workbook = load_workbook(path, read_only=True, data_only=True)
    except Exception as err:  # openpyxl raises several unrelated types for a broken file
        raise InputError(path, f"cannot read workbook ({err})") from None
    try:
        rows = workbook.worksheets[0].iter_rows(values_only=True)
        header = [("" if cell is None else str(cell)) for cell in next(rows, ())]
        for number, values in enumerate(rows, start=2):
            if all(value is None for value in values):
                continue
            yield number, {name: ("" if value is None else value) for name, value in zip(header, values) if name}
    finally:
        workbook.close()


def read_rows(path: str | os.PathLike) -> Iterator[tuple[int, Row]]:
    """Rows of a ``.jsonl``, ``.csv`` or ``.xlsx`` file."""
    suffix = Path(path).suffix.lower()
    readers: dict[str, Callable[[str | os.PathLike], Iterator[tuple[int, Row]]]] = {
        ".jsonl": read_jsonl,
        ".csv": read_csv,
        ".xlsx": read_xlsx,
    }
    if suffix not in readers:
        raise InputError(path, f"unsupported file type {suffix!r} (expected .jsonl, .csv or .xlsx)")
    return readers[suffix](path)


def require(row: Row, names: str | tuple[str, ...], path: str | os.PathLike, line: int) -> Any:
    """The value of the first present, non-empty column among ``names``; InputError if none."""
    names = (names,) if isinstance(names, str) else names
    for name in names:
        value = row.get(name)
        if value is not None and str(value).strip() != "":
            return value
    raise InputError(path, "missing or empty value", line=line, field=" or ".join(names))


def text_value(row: Row, names: tuple[str, ...]) -> str:
    """The first non-empty column among ``names`` as a stripped string, else ''."""
    for name in names:
        value = row.get(name)
        if value is not None and str(value).strip() not in ("", "nan"):
            return str(value).strip()
    return ""


def existing_file(root: Path, *names: str) -> Path:
    """The first of ``root/name`` that exists; InputError naming what was looked for otherwise."""
    for name in names:
        if (root / name).is_file():
            return root / name
    raise InputError(root / names[0], "file not found" + (f" (also tried {', '.join(names[1:])})" if names[1:] else ""))


def collect_examples(rows: Iterable[tuple[int, Row]], limit: int | None, build: RowBuilder) -> LoadResult:
    """Examples built row by row until ``limit`` is reached, with the problems recorded on the way."""
    result = LoadResult()
    for line, row in rows:
        if limit is not None and len(result.examples) >= limit:
            break
        try:
            example = build(line, row, result.problems)
        except SkipItem as skipped:
            result.problems.append(skipped.problem)
            continue
        if example is not None:
            result.examples.append(example)
    return result
