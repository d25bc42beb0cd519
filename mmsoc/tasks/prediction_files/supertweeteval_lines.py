"""``--format supertweeteval-lines``: SuperTweetEval prediction files, one prediction per line, line i for test
item i, as the official per-task scripts (``eval_scripts/<task>.py``) and the hub's evaluation read them.

``--predictions`` is one file (its task from ``--task`` or its name) or a folder of files named after their
tasks (``tweet-qa.txt``, ``tweet_qa.txt``, ``flan-t5-base-tweet-qa.txt``...). The gold values come from the
test split in ``--data`` (the hub layout, or ``sample``). Lines are the file split at ``\\n``; one empty
last line (a final newline) is dropped; any other count than the number of test items is refused (the
scripts would silently cut or misalign). Lines are read as the scripts read them (``--parse lenient``:
leniently), except that a line the task cannot score (a regression line ``nan`` or ``inf``, which the
scripts hand to ``spearmanr`` and so make the whole task NaN) is left out and recorded. metrics.json
holds, per task, the paper's metric and the script's where they differ; averages.json the unified mean
and the paper's clusters.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mmsoc.core.io import InputError, read_text
from mmsoc.tasks.prediction_files import PredictionFile, PredictionFormat, ScoreRequest

SUITE = "supertweeteval"


def _names() -> dict[str, str]:
    """Task id -> its short name."""
    from mmsoc.tasks.registry import short_name, task_ids

    return {task: short_name(task) for task in task_ids(SUITE)}


def task_of_file(path: Path) -> str | None:
    """The task a file is named after (``...tweet-qa.txt`` / ``...tweet_qa.txt``), the longest name matching."""
    stem = path.stem.lower()
    found = [
        (len(name), task)
        for task, name in _names().items()
        if stem.endswith(name) or stem.endswith(name.replace("_", "-"))
    ]
    return max(found)[1] if found else None


def _files(request: ScoreRequest) -> dict[str, Path]:
    from mmsoc.tasks.registry import qualified

    path = request.path
    if path.is_dir():
        if request.task:
            raise ValueError("--task names the task of one file; a folder's files are named after their tasks")
        files: dict[str, Path] = {}
        for file in sorted(path.glob("*.txt")):
            task = task_of_file(file)
            if task is not None:
                if task in files:
                    raise InputError(file, f"a second file for {_names()[task]} (first: {files[task].name})")
                files[task] = file
        if not files:
            raise InputError(path, "no prediction file named after a SuperTweetEval task (e.g. tweet-qa.txt)")
        return files
    if not path.is_file():
        raise InputError(path, "no such file or folder")
    task = qualified(request.task, SUITE) if request.task else task_of_file(path)
    if task is None:
        raise ValueError(f"cannot tell the task of {path.name} from its name: give --task")
    return {task: path}


def read(request: ScoreRequest) -> dict[str, PredictionFile]:
    from mmsoc.tasks.data import load_examples
    from mmsoc.tasks.scoring import parse_response

    if not request.data:
        raise ValueError(
            "--format supertweeteval-lines takes the gold values from a data folder: give --data DIR "
            "(the hub layout, data/<task>/test.jsonl) or --data sample"
        )
    out: dict[str, PredictionFile] = {}
    for task, file in sorted(_files(request).items(), key=lambda pair: list(_names()).index(pair[0])):
        examples = load_examples(task, request.data, "test").examples
        lines = read_text(file).split("\n")  # bytes that are not UTF-8: InputError naming the line
        if len(lines) == len(examples) + 1 and lines[-1] == "":
            lines.pop()
        if len(lines) != len(examples):
            raise InputError(
                file,
                f"{len(lines)} lines for {len(examples)} test items of {_names()[task]} in "
                f"{request.data} (one prediction per line, line i for item i)",
            )
        rows = out[task] = PredictionFile()
        mode = "strict" if request.parser == "official" else "lenient"
        for number, (example, line) in enumerate(zip(examples, lines), start=1):
            try:
                _check_line(task, line)
            except ValueError as err:
                rows.skipped.append(str(InputError(file, f"{err}; the item is left out", line=number)))
                continue
            parsed = parse_response(task, line, mode)
            rows.ids.append(example.id)
            rows.predictions.append(parsed.label if mode == "strict" or parsed.ok else None)
            rows.references.append(example.label)
        if not rows.ids:
            raise InputError(file, f"no scorable line ({len(rows.skipped)} left out; first: {rows.skipped[0]})")
    return out


def _check_line(task: str, line: str) -> None:
    """ValueError for a line the task's kind refuses to score (a regression line ``nan`` or ``inf``)."""
    from mmsoc.tasks.registry import get_task, kind_of

    spec = get_task(task)
    kind_of(spec).check_prediction(spec, line)


def view(task_id: str, metrics: Mapping[str, float | None], request: ScoreRequest) -> dict[str, Any]:
    return dict(metrics)


def averages(entries: dict[str, dict[str, Any]]) -> dict[str, Any]:
    from mmsoc.tasks.registry import get_task
    from mmsoc.tasks.supertweeteval.averages import unified

    return unified({task: entry.get(get_task(task).headline) for task, entry in entries.items()})


FORMAT = PredictionFormat(
    "supertweeteval-lines",
    "SuperTweetEval files of one prediction per line (a file, or a "
    "folder of files named after their tasks), gold values from --data",
    read,
    view,
    averages,
    options=("parser",),
)
