"""``mmsoc.evaluate(...)``: ``mmsoc eval`` from Python, with the same specs (docs/python-api.md)."""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Evaluation:
    """What a run left: ``results`` (metrics.json: task -> n, success rates, metrics, intervals), the
    ``run_dir`` holding predictions.jsonl, config.json and the rest, and its ``provenance`` records."""

    results: dict[str, Any]
    run_dir: Path
    provenance: list[dict[str, Any]]


def evaluate(
    model: str,
    tasks: str | Sequence[str],
    out: str | os.PathLike,
    *,
    data: str | os.PathLike = "sample",
    progress: bool = False,
    **options: Any,
) -> Evaluation:
    """Run ``mmsoc eval`` (``--model MODEL --task TASKS --out OUT``) and return its metrics and folder.

    ``model`` is a ``--model`` spec (a hub id or folder, ``hf:ID``, ``lm:ID``, ``openai:NAME``, ``random``);
    ``tasks`` task ids (a list, or the comma-separated text the command takes); ``options`` the command's
    other options by their Python names (``limit=8``, ``greedy=True``, ``suite="socket"``,
    ``revision="main"``). An ``out`` that holds the same run resumes it, as the command does. Bad input
    raises the error the command would have printed (``mmsoc.core.io.InputError``, ``UsageError``)."""
    from mmsoc.commands.eval import eval_command
    from mmsoc.core.provenance import read_records

    task = tasks if isinstance(tasks, str) else ",".join(tasks)
    settings = {key: str(value) for key, value in options.items() if key in ("batch_size", "seeds")}
    with contextlib.redirect_stdout(io.StringIO()):  # the command's summary table: the results are returned
        eval_command(
            task=task, model=model, out=Path(out), data=str(data), progress=progress, **{**options, **settings}
        )
    run_dir = Path(out)
    results = json.loads((run_dir / "metrics.json").read_text(encoding="utf-8"))
    return Evaluation(results, run_dir, read_records(run_dir))
