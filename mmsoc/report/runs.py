"""Read run directories (config.json + predictions.jsonl) for reports, keeping notes on bad lines.

A run whose rows carry ``round`` (``mmsoc self-improve``) becomes one run per round, named
"MODEL round N", so rounds are scored and compared side by side instead of counting as duplicates.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmsoc.core.io import InputError
from mmsoc.tasks.prediction_files import RowError
from mmsoc.tasks.registry import TASKS, kind_of

REQUIRED_FIELDS = ("task", "id", "parsed", "valid", "reference")


@dataclass(frozen=True)
class RunRow:
    """One logged prediction, as far as scoring needs it (``parsed`` is None when not valid)."""

    id: str
    seed: int
    parsed: object
    valid: bool
    reference: object
    strict_valid: bool | None = None
    """Whether the response followed the requested format exactly (None when the log does not say)."""


@dataclass
class Run:
    """A run directory's configuration and predictions, grouped as task -> seed -> item id -> row."""

    path: Path
    name: str
    config: dict[str, Any]
    rows: dict[str, dict[int, dict[str, RunRow]]]
    skipped: list[str] = field(default_factory=list)
    duplicates: int = 0
    round: int | None = None

    @property
    def model(self) -> str:
        return str(self.config.get("model", self.path.name))

    @property
    def missing_tasks(self) -> list[str]:
        """Tasks the configuration names that have no prediction at all."""
        return [task for task in self.config.get("tasks") or [] if task not in self.rows]


def load_run(path: str | Path) -> list[Run]:
    """Load one run directory (one run per round when rows carry ``round``); malformed prediction lines
    are skipped and recorded, not fatal."""
    path = Path(path)
    config_path, predictions_path = path / "config.json", path / "predictions.jsonl"
    if not config_path.is_file():
        raise InputError(config_path, "run directory has no config.json")
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise InputError(config_path, f"invalid JSON ({err.msg})", line=err.lineno) from None
    if not isinstance(config, dict):
        raise InputError(config_path, "expected a JSON object")
    if not predictions_path.is_file():
        raise InputError(predictions_path, "run directory has no predictions.jsonl")
    rounds: dict[int | None, Run] = {}
    skipped: list[str] = []
    with open(predictions_path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    _add_row(rounds, path, config, line)
                except RowError as err:
                    skipped.append(err.located(predictions_path, number))
    runs = [rounds[r] for r in sorted(rounds, key=lambda r: -1 if r is None else r)] or [Run(path, "", config, {})]
    runs[0].skipped = skipped
    order = {task: spec.order for task, spec in TASKS.items()}
    for run in runs:
        run.rows = {task: run.rows[task] for task in sorted(run.rows, key=lambda task: (order[task], task))}
    return runs


def _add_row(rounds: dict[int | None, Run], path: Path, config: dict[str, Any], line: str) -> None:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as err:
        raise RowError(f"invalid JSON ({err.msg} at column {err.colno})") from None
    if not isinstance(obj, dict):
        raise RowError("expected a JSON object")
    for name in REQUIRED_FIELDS:
        if name not in obj:
            raise RowError("missing", field=name)
    if obj["task"] not in TASKS:
        raise RowError(f"unknown task {obj['task']!r}", field="task")
    if obj["reference"] is None:
        raise RowError("no reference to score against", field="reference")
    spec = TASKS.get(obj["task"])
    try:
        kind_of(spec).check_reference(spec, obj["reference"])
    except ValueError as err:
        raise RowError(f"{err} ({spec.id})", field="reference") from None
    seed = obj.get("seed")
    if seed is not None and not isinstance(seed, int):
        raise RowError(f"expected an integer or null, got {seed!r}", field="seed")
    number = obj.get("round")
    if number is not None and (not isinstance(number, int) or isinstance(number, bool)):
        raise RowError(f"expected an integer or null, got {number!r}", field="round")
    run = rounds.setdefault(number, Run(path, "", config, {}, round=number))
    valid = bool(obj["valid"])
    strict = obj.get("strict_valid")
    row = RunRow(
        str(obj["id"]),
        0 if seed is None else seed,
        obj["parsed"] if valid else None,
        valid,
        obj["reference"],
        None if strict is None else bool(strict),
    )
    by_id = run.rows.setdefault(obj["task"], {}).setdefault(row.seed, {})
    if row.id in by_id:
        run.duplicates += 1
        return
    by_id[row.id] = row


def load_runs(paths: Sequence[str | Path]) -> list[Run]:
    """Load runs and give each a unique display name: the model, then the folder when models repeat
    between folders, then the round."""
    folders = [load_run(path) for path in paths]
    models = [folder[0].model for folder in folders]
    runs = []
    for folder in folders:
        for run in folder:
            run.name = run.model if models.count(run.model) == 1 else f"{run.model} ({run.path.name})"
            run.name += "" if run.round is None else f" round {run.round}"
            runs.append(run)
    names = [run.name for run in runs]
    for i, run in enumerate(runs):
        if names.count(run.name) > 1:
            run.name = f"{run.name} #{i + 1}"
    return runs
