"""The default format: predictions made by any tool as JSONL or CSV rows of (id, prediction, reference), one task."""

from __future__ import annotations

import csv
import io
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
    """(id, prediction or None, reference) of one row, or RowError naming the bad field."""
    for name in ("id", "reference"):
        if row.get(name) in (None, "") or row.get(name) == []:
            raise RowError("missing or empty", field=name)
    if "prediction" not in row:
        raise RowError("missing", field="prediction")
    try:
        reference = kind_of(spec).check_reference(spec, row["reference"])
    except ValueError as err:
        raise RowError(str(err), field="reference") from None
    return str(row["id"]), row["prediction"], reference


def read(request: ScoreRequest) -> dict[str, PredictionFile]:
    if request.task is None:
        raise ValueError("--format rows scores one task: give --task")
    return {request.task: read_rows_file(request.path, request.task)}


FORMAT = PredictionFormat("rows", "JSONL or CSV rows of id, prediction and reference for one task (--task)", read)
