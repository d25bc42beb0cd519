"""The folders a report reads, by type: ``mmsoc eval`` runs (config.json + predictions.jsonl), ``desiq eval``
runs (metrics.json with a ``results`` list) and arena rating folders (``mmsoc arena rate``: ratings.json).

A desiq-eval ``metrics.json`` is ``{"model", "inputs", "answer", "results": [{"condition", "config", "accuracy",
"chance", "n", "videos", "ci95": [lo, hi] or null, "success_rate"}, ...], "position": {"chosen": [ints], "gold":
[ints]}}`` (``videos`` may be missing: then no verdict is read from the interval); its numbers are shown as
the run computed them (they are not recomputed from predictions). Every field is checked, and a bad one is
named with its file.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmsoc.core.io import InputError
from mmsoc.report.runs import Run, load_runs


@dataclass
class DesiqRun:
    """A ``desiq eval`` run folder: its metrics.json, checked."""

    path: Path
    name: str
    model: str
    inputs: str
    answer: str
    results: list[dict[str, Any]]
    position: dict[str, list[int]]


@dataclass
class ArenaRatings:
    """A folder written by ``mmsoc arena rate``: its ratings.json, checked."""

    path: Path
    name: str
    ratings: dict[str, Any]


@dataclass
class Sources:
    """Every folder of a report, by type, in the order given."""

    mmsoc: list[Run] = field(default_factory=list)
    desiq: list[DesiqRun] = field(default_factory=list)
    arena: list[ArenaRatings] = field(default_factory=list)


def load_sources(paths: list[str | Path]) -> Sources:
    """Load every folder by its type (see the module docstring); display names are unique within a type."""
    by_type: dict[str, list[Path]] = {"mmsoc": [], "desiq": [], "arena": []}
    for path in map(Path, paths):
        by_type[folder_type(path)].append(path)
    desiq = [_desiq(path) for path in by_type["desiq"]]
    _name(desiq, [run.model for run in desiq])
    arena = [ArenaRatings(path, "", _ratings(path)) for path in by_type["arena"]]
    _name(arena, ["arena ratings"] * len(arena))
    return Sources(load_runs(by_type["mmsoc"]) if by_type["mmsoc"] else [], desiq, arena)


def folder_type(path: Path) -> str:
    """``arena`` (ratings.json), ``desiq`` (metrics.json with a results list) or ``mmsoc`` (anything else)."""
    if not path.is_dir():
        raise InputError(path, "not a folder (expected a run folder or an arena ratings folder)")
    if (path / "ratings.json").is_file():
        return "arena"
    metrics = path / "metrics.json"
    if (metrics.is_file() and not (path / "predictions.jsonl").is_file()) or _has_results(metrics):
        return "desiq"
    return "mmsoc"


def _has_results(metrics: Path) -> bool:
    if not metrics.is_file():
        return False
    try:
        data = json.loads(metrics.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False
    return isinstance(data, dict) and "results" in data


def _name(items: list, bases: list[str]) -> None:
    """``base``, then ``base (folder)`` where bases repeat, then ``#k`` where that still repeats."""
    names = [base if bases.count(base) == 1 else f"{base} ({item.path.name})" for item, base in zip(items, bases)]
    for k, (item, name) in enumerate(zip(items, names)):
        item.name = name if names.count(name) == 1 else f"{name} #{k + 1}"


def _read_object(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise InputError(path, f"invalid JSON ({err.msg})", line=err.lineno) from None
    except UnicodeDecodeError as err:
        raise InputError(path, f"not UTF-8 text ({err.reason} at byte {err.start})") from None
    if not isinstance(data, dict):
        raise InputError(path, "expected a JSON object")
    return data


def _number(value: object, source: Path, name: str, optional: bool = False) -> float | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(source, f"expected a number{' or null' if optional else ''}, got {value!r}", field=name)
    return float(value)


def _text(data: dict, key: str, source: Path, where: str = "") -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise InputError(source, f"expected a string, got {value!r}", field=where + key)
    return value


def _counts(value: object, source: Path, name: str) -> list[int]:
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
    ):
        raise InputError(source, f"expected a list of counts, got {value!r}", field=name)
    return value


def _desiq(path: Path) -> DesiqRun:
    source = path / "metrics.json"
    data = _read_object(source)
    if not isinstance(data.get("results"), list):
        raise InputError(source, "expected a list of results (a desiq eval run)", field="results")
    results = []
    for k, row in enumerate(data["results"]):
        where = f"results[{k}]."
        if not isinstance(row, dict):
            raise InputError(source, "expected an object", field=where[:-1])
        interval = [None, None] if row.get("ci95") is None else row["ci95"]
        if not (isinstance(interval, list) and len(interval) == 2):
            raise InputError(source, f"expected [low, high], got {interval!r}", field=where + "ci95")
        n, videos = row.get("n"), row.get("videos")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise InputError(source, f"expected a count, got {n!r}", field=where + "n")
        if videos is not None and (isinstance(videos, bool) or not isinstance(videos, int) or videos < 0):
            raise InputError(source, f"expected a count or null, got {videos!r}", field=where + "videos")
        results.append(
            {
                "condition": _text(row, "condition", source, where),
                "config": _text(row, "config", source, where),
                "accuracy": _number(row.get("accuracy"), source, where + "accuracy", optional=True),
                "chance": _number(row.get("chance"), source, where + "chance"),
                "n": n,
                "videos": videos,
                "ci95": [_number(v, source, f"{where}ci95", optional=True) for v in interval],
                "success_rate": _number(row.get("success_rate"), source, where + "success_rate", optional=True),
            }
        )
    position = data.get("position")
    if not isinstance(position, dict):
        raise InputError(source, f"expected an object with chosen and gold, got {position!r}", field="position")
    chosen, gold = (_counts(position.get(key), source, f"position.{key}") for key in ("chosen", "gold"))
    if len(chosen) != len(gold):
        raise InputError(source, f"chosen has {len(chosen)} positions, gold {len(gold)}", field="position")
    return DesiqRun(
        path,
        "",
        _text(data, "model", source),
        str(data.get("inputs", "")),
        str(data.get("answer", "")),
        results,
        {"chosen": chosen, "gold": gold},
    )


def _ratings(path: Path) -> dict[str, Any]:
    source = path / "ratings.json"
    data = _read_object(source)
    models = data.get("models")
    if not isinstance(models, list) or not models:
        raise InputError(source, "expected a non-empty list of rated models", field="models")
    checked = []
    for k, entry in enumerate(models):
        where = f"models[{k}]."
        if not isinstance(entry, dict):
            raise InputError(source, "expected an object", field=where[:-1])
        checked.append(
            {
                "model": _text(entry, "model", source, where),
                "rating": _number(entry.get("rating"), source, where + "rating"),
                **{key: _number(entry.get(key), source, where + key, optional=True) for key in ("lower", "upper")},
                "rank": entry.get("rank"),
                "battles": entry.get("battles"),
            }
        )
    elo = data.get("elo") if isinstance(data.get("elo"), dict) else {}
    return {"method": str(data.get("method", "")), "models": checked, "elo": elo, "dropped": data.get("dropped")}
