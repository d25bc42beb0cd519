"""``--format socket-tsv``: a prediction file of SocKET's ``experiments/zeroshot/predict.py``, scored as its
``eval.py`` scores it.

One file per model, tab-separated as pandas writes it (quoted fields may span lines), columns ``text``,
``label``, ``prompt``, ``task``, ``generated_text``; several tasks per file. As eval.py reads it:

* ``generated_text`` is read by pandas, so an empty cell and ``None``, ``NA``, ``null``, ``nan``... are
  missing answers; the other cells are kept as written (eval.py would drop a row whose text reads as
  missing; none of the published files has one);
* a classification label is a class number (``1`` or ``1.0``) or a class name; a regression label a number;
  a span label the Python literal ``{'toxic': [...]}`` (read with ``ast.literal_eval``);
* a file whose name contains ``llama2`` has each answer cut after its last ``Response:`` (span answers:
  ``Response: ``), as eval.py does.

metrics.json holds, per task, ``type`` and eval.py's metrics (``f1`` and ``hit_rate``; regression
``corr_original``, ``corr_score`` and ``hit_rate``) and ``n``: missing answers dropped, or with
``--penalize-missing`` replaced by a seeded random wrong class (regression: 0); ``--parse lenient`` reads
classification answers with the lenient reader; ``--task`` keeps one task of the file. averages.json holds the
paper's Table 2 means.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mmsoc.core.io import InputError, read_text
from mmsoc.tasks.prediction_files import PredictionFile, PredictionFormat, RowError, ScoreRequest

COLUMNS = ("text", "label", "prompt", "task", "generated_text")


def _record_lines(path: Path) -> list[int]:
    """The line each record of the file starts on (the header is line 1)."""
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t")
        starts, start = [], 1
        for _ in reader:
            starts.append(start)
            start = reader.line_num + 1
    return starts[1:]


def read(request: ScoreRequest) -> dict[str, PredictionFile]:
    import pandas as pd

    path = request.path
    if not path.is_file():
        raise InputError(path, "no such file")
    read_text(path)  # bytes that are not UTF-8: InputError naming the line (pandas names only the byte)
    try:
        cells = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
        answers = pd.read_csv(path, sep="\t", dtype=str, usecols=lambda name: name == "generated_text")
        lines = _record_lines(path)
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as err:
        raise InputError(path, f"not a SocKET prediction TSV ({' '.join(str(err).split())})") from None
    absent = [name for name in COLUMNS if name not in cells.columns]
    if absent:
        raise InputError(
            path, f"the header lacks column(s) {', '.join(absent)} (expected {', '.join(COLUMNS)})", line=1
        )
    if len(lines) != len(cells):
        lines = [None] * len(cells)  # type: ignore[list-item]  # quoting pandas reads differently: no line numbers
    missing = answers["generated_text"].isna().tolist()
    out: dict[str, PredictionFile] = {}
    for index, row in enumerate(cells[list(COLUMNS)].itertuples(index=False)):
        text, label, _, task, answer = row
        try:
            task_id = _task_id(task)
            reference = _reference(task_id, text, label)
        except RowError as err:
            rows = out.setdefault("", PredictionFile())
            rows.skipped.append(err.located(path, lines[index]))
            continue
        rows = out.setdefault(task_id, PredictionFile())
        rows.ids.append(str(len(rows.ids)))
        rows.predictions.append(None if missing[index] else _answer(task_id, answer, path.name))
        rows.references.append(reference)
    skipped = out.pop("", PredictionFile()).skipped
    if request.task:
        from mmsoc.tasks.registry import qualified

        wanted = qualified(request.task, "socket")
        out = {task: rows for task, rows in out.items() if task == wanted}
    if not out:
        raise InputError(path, "no scorable rows" + (f" (first skipped: {skipped[0]})" if skipped else ""))
    first = next(iter(sorted(out)))
    out[first].skipped.extend(skipped)
    return dict(sorted(out.items()))


def _task_id(name: str) -> str:
    from mmsoc.tasks.registry import TASKS

    task_id = f"socket/{name}"
    if task_id not in TASKS:
        raise RowError(f"{name!r} is not a SocKET task", field="task")
    return task_id


def _reference(task_id: str, text: str, label: str) -> str | float | dict[str, str | list[str]]:
    """The reference of a row: class name (from a number such as ``1.0``, as eval.py's ``astype(float).astype(int)``,
    or a name), score, or ``{"text", "spans"}``; RowError naming the label otherwise."""
    from mmsoc.tasks.registry import get_task
    from mmsoc.tasks.socket.data import class_label, regression_label, span_label
    from mmsoc.tasks.socket.table import type_of

    spec = get_task(task_id)
    task_type = type_of(spec)
    try:
        if task_type == "SPAN":
            return {"text": text, "spans": span_label(label)}
        if task_type == "REG":
            return regression_label(label)
        return class_label(spec, _whole_number(label))
    except ValueError as err:
        raise RowError(str(err), field="label") from None


def _whole_number(label: str) -> str:
    """``1.0`` -> ``1``; anything else as written."""
    try:
        number = float(label)
    except ValueError:
        return label
    return str(int(number)) if number.is_integer() else label


def _answer(task_id: str, answer: str, file_name: str) -> str:
    """The answer as eval.py reads it: after the last ``Response:`` for files named like ``llama2``."""
    if "llama2" not in file_name.lower():
        return answer
    from mmsoc.tasks.registry import get_task
    from mmsoc.tasks.socket.table import type_of

    if type_of(get_task(task_id)) == "SPAN":
        return answer.split("Response: ")[-1].strip()
    return answer.split("Response:")[-1].strip()


def view(task_id: str, metrics: Mapping[str, float | None], request: ScoreRequest) -> dict[str, Any]:
    """eval.py's metrics of one task, for the parser and missing-answer rule asked for."""
    from mmsoc.tasks.registry import get_task
    from mmsoc.tasks.socket.table import type_of

    task_type = type_of(get_task(task_id))
    penalty = "_penalized" if request.penalize_missing else ""
    if task_type == "REG":
        return {
            "type": task_type,
            "corr_original": metrics[f"corr_original{penalty}"],
            "corr_score": metrics[f"corr_score{penalty}"],
            "hit_rate": metrics["hit_rate"],
            "n": metrics["n"],
        }
    if task_type == "SPAN":
        return {"type": task_type, "f1": metrics["f1"], "hit_rate": metrics["hit_rate"], "n": metrics["n"]}
    reader = "_lenient" if request.parser == "lenient" else ""
    return {
        "type": task_type,
        "f1": metrics[f"f1{reader}{penalty}"],
        "hit_rate": metrics[f"hit_rate{reader}"],
        "n": metrics["n"],
    }


def averages(entries: dict[str, dict[str, Any]]) -> dict[str, Any]:
    from mmsoc.tasks.socket.averages import table2

    return table2({task: entry["corr_score" if entry["type"] == "REG" else "f1"] for task, entry in entries.items()})


FORMAT = PredictionFormat(
    "socket-tsv",
    "a SocKET predict.py TSV (text, label, prompt, task, generated_text), several tasks, scored as its eval.py",
    read,
    view,
    averages,
    options=("parser", "penalize_missing"),
)
