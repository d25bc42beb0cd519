"""The default format: predictions made by any tool as JSONL or CSV rows of (id, prediction, reference), one task."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from pathlib import Path

from mmsoc.core.io import InputError, read_jsonl, read_text
from mmsoc.tasks.prediction_files import PredictionFile, PredictionFormat, RowError, ScoreRequest
from mmsoc.tasks.registry import get_task, kind_of

FIELDS = ("id", "prediction", "reference")


def read_rows_file(path: str | Path, task_id: str) -> PredictionFile:
    """Read ``path`` (.jsonl or .csv); bad rows are skipped and recorded, a bad file raises InputError.

    A missing or empty prediction is an unparseable answer (None). For tagging, lists may be JSON
    lists or comma-separated strings (also inside CSV cells).
    """
    path = Path(path)
    spec = get_task(task_id)
    out = PredictionFile()
    seen: set[str] = set()
    for number, row in _rows(path):
        if isinstance(row, InputError):
            out.skipped.append(str(row))
            continue
        try:
            item_id, prediction, reference = _check(row, spec)
            if item_id in seen:
                raise RowError(f"duplicate id {item_id!r}", field="id")
        except RowError as err:
            out.skipped.append(err.located(path, number))
            continue
        seen.add(item_id)
        out.ids.append(item_id)
        out.predictions.append(prediction)
        out.references.append(reference)
    out.notes.extend(spelling_notes(out.ids))
    if not out.ids:
        raise InputError(
            path,
            "no scorable rows" + (f" ({len(out.skipped)} skipped; first: {out.skipped[0]})" if out.skipped else ""),
        )
    return out


def _rows(path: Path):
    if not path.is_file():
        raise InputError(path, "no such file")
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(read_text(path), newline=""))
        absent = [name for name in FIELDS if name not in (reader.fieldnames or [])]
        if absent:
            raise InputError(path, f"the header lacks column(s) {', '.join(absent)}", line=1, field=absent[0])
        start = reader.line_num + 1
        for row in reader:
            if None in row:  # more values than columns: the values would be read shifted
                columns = len(reader.fieldnames or ())
                yield (
                    start,
                    InputError(
                        path,
                        f"{columns + len(row[None])} values for {columns} columns "
                        f"({', '.join(reader.fieldnames or ())})",
                        line=start,
                    ),
                )
            else:
                yield start, row
            start = reader.line_num + 1
    elif path.suffix.lower() in (".jsonl", ".json"):
        yield from read_jsonl(path, skip_bad=True)
    else:
        raise InputError(path, "expected a .jsonl or .csv file")


def _check(row: dict, spec) -> tuple[str, object, object]:
    """(id, prediction or None, reference) of one row, or RowError naming the bad field: the kind refuses
    values it cannot score (a number where text is expected, NaN); JSON NaN and infinities never get here
    (``read_jsonl`` refuses the line)."""
    for name in ("id", "reference"):
        if row.get(name) in (None, "") or row.get(name) == []:
            raise RowError("missing or empty", field=name)
    if "prediction" not in row:
        raise RowError("missing", field="prediction")
    if isinstance(row["id"], (dict, list, bool)):
        raise RowError(f"expected a string or a number, got {row['id']!r:.60}", field="id")
    kind = kind_of(spec)
    for name, check in (("reference", kind.check_reference), ("prediction", kind.check_prediction)):
        try:
            row[name] = check(spec, row[name])
        except ValueError as err:
            raise RowError(str(err), field=name) from None
    return str(row["id"]), row["prediction"], row["reference"]


def spelling_notes(ids: list[str]) -> list[str]:
    """A note for each group of ids that differ only in spelling (``1``, ``1.0``, `` 1``): they are kept
    as the different ids the file writes, but may have been meant as one."""
    groups: dict[str, list[str]] = {}
    for item_id in ids:
        groups.setdefault(_spelled(item_id), []).append(item_id)
    return [
        f"ids {', '.join(repr(i) for i in group)} differ only in spelling; scored as {len(group)} different items"
        for group in groups.values()
        if len(group) > 1
    ]


def _spelled(item_id: str) -> str:
    """What an id reads as apart from its spelling: the number it writes, else its stripped, case-folded text."""
    try:
        return repr(Decimal(item_id.strip()).normalize())
    except ArithmeticError:
        return item_id.strip().casefold()


def read(request: ScoreRequest) -> dict[str, PredictionFile]:
    if request.task is None:
        raise ValueError("--format rows scores one task: give --task")
    return {request.task: read_rows_file(request.path, request.task)}


FORMAT = PredictionFormat("rows", "JSONL or CSV rows of id, prediction and reference for one task (--task)", read)
