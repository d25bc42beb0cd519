"""The run's append-only prediction log, split per process and merged in a fixed order."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from mmsoc.io import JsonlAppender, atomic_open, read_jsonl

PREDICTIONS = "predictions.jsonl"

Key = tuple[str, str, "int | None"]
"""(task, id, seed) of one prediction; seed is None for greedy decoding."""


def row_key(row: dict[str, Any]) -> Key:
    return row["task"], row["id"], row["seed"]


def rank_logs(run_dir: Path) -> list[Path]:
    """Per-process logs (left by a multi-process run), in rank order."""
    return sorted(run_dir.glob("predictions.rank*.jsonl"), key=lambda p: int(p.name.split(".")[1][4:]))


def log_paths(run_dir: Path) -> list[Path]:
    """The merged log first, then any per-process logs."""
    merged = run_dir / PREDICTIONS
    return ([merged] if merged.exists() else []) + rank_logs(run_dir)


def own_log(run_dir: Path, rank: int, world: int) -> Path:
    """Where this process appends: the merged log itself when it runs alone."""
    return run_dir / (PREDICTIONS if world == 1 else f"predictions.rank{rank}.jsonl")


def repair_logs(run_dir: Path) -> None:
    """Drop a partial last line (from a killed process) from every log, before anyone reads them."""
    for path in log_paths(run_dir):
        JsonlAppender(path).close()


def read_rows(run_dir: Path) -> list[dict[str, Any]]:
    """Every logged prediction, each (task, id, seed) once (the first copy wins)."""
    seen: dict[Key, dict[str, Any]] = {}
    for path in log_paths(run_dir):
        for _, row in read_jsonl(path):
            seen.setdefault(row_key(row), row)
    return list(seen.values())


def merge_logs(run_dir: Path, order: Sequence[Key]) -> list[dict[str, Any]]:
    """Rewrite the merged log atomically in ``order`` (rows not in it follow, as found) and drop
    the per-process logs. The result is byte-identical to a single uninterrupted process's log."""
    rows = read_rows(run_dir)
    rank = {key: i for i, key in enumerate(order)}
    rows.sort(key=lambda row: rank.get(row_key(row), len(rank)))
    _write_rows(run_dir / PREDICTIONS, rows)
    for path in rank_logs(run_dir):
        path.unlink()
    return rows


def _write_rows(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    """Same line format as JsonlAppender, written whole or not at all."""
    with atomic_open(path, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
