"""Recompute every run's metrics from its predictions and assemble the report's content."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.metrics import confusion_matrix

from mmsoc import __version__
from mmsoc.core.progress import steps, track
from mmsoc.metrics.datasets import dataset_rows
from mmsoc.metrics.labels import INVALID, canonical_label
from mmsoc.metrics.registry import all_keys, why_undefined
from mmsoc.metrics.stats import percentile_interval, replicate_values, resample_counts, seed_mean_replicates
from mmsoc.metrics.verdict import DIFFERENCE_WORDS, MIN_CLUSTERS, enough, interval_verdict, read_finding
from mmsoc.report.methods import methods, metric_order
from mmsoc.report.runs import Run, RunRow
from mmsoc.report.score_info import info_counts
from mmsoc.runners.summary import success_rates
from mmsoc.tasks import TaskScores, get_task, kind_of, score_task_detailed, task_ids
from mmsoc.tasks.registry import TASKS


@dataclass(frozen=True)
class ReportSettings:
    """How intervals are drawn (from at least ``min_clusters`` items, or videos for desiq runs) and which
    text encoder the embedding metrics use; ``progress``: the scoring and bootstrap steps shown on stderr."""

    n_boot: int = 1000
    seed: int = 0
    confidence: float = 0.95
    text_encoder: str | None = None
    fast: bool = False
    min_clusters: int = MIN_CLUSTERS
    progress: bool = False


@dataclass
class Cell:
    """One run on one task: per-seed scores on the items every seed answered.

    ``datasets`` holds the rows of each dataset when the task pools several (OCR): its metrics are
    then the mean over datasets, as the paper averages OCR over Hateful Memes and Memotion."""

    task: str
    ids: list[str]
    seeds: list[int]
    scores: list[TaskScores]
    success: dict[str, float | None]
    n_rows: int
    partial_items: int
    parsed: list[list[object]]
    references: list[object]
    datasets: dict[str, np.ndarray] = field(default_factory=dict)
    dataset_success: dict[str, dict[str, float | None]] = field(default_factory=dict)

    def metric_keys(self) -> list[str]:
        return [key for key in all_keys() if key in self.scores[0].stats]

    def parts(self, rows: np.ndarray) -> list[np.ndarray]:
        """``rows`` split by dataset for a task that pools datasets, else ``[rows]``."""
        by_dataset = dataset_rows([self.ids[i] for i in rows], get_task(self.task).sources)
        return [rows[part] for part in by_dataset.values()] or [rows]


@dataclass
class Report:
    """The report's content (``data`` is what report.json holds) and the arrays figures need."""

    data: dict
    lengths: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)


def build_report(runs: list[Run], settings: ReportSettings) -> Report:
    """Score every (run, task), then add intervals, confusion matrices, aggregates and comparisons."""
    order = {task: spec.order for task, spec in TASKS.items()}
    tasks = sorted({task for run in runs for task in run.rows}, key=lambda task: (order[task], task))
    if runs and not tasks:
        raise ValueError("no run has any prediction to score")
    cells: dict[str, dict[str, Cell]] = {task: {} for task in tasks}
    todo = [(run, task) for task in tasks for run in runs if task in run.rows]
    with steps("report: scoring", total=len(todo), enabled=settings.progress) as bar:
        for run, task in todo:
            bar.describe(f"report: scoring {run.name}: {task}")
            cell = _score_cell(run, task, settings)
            if cell is not None:
                cells[task][run.name] = cell
            bar.advance()
    tasks = [task for task in tasks if cells[task]]
    shown = track(tasks, f"report: {settings.n_boot} bootstrap replicates per metric", enabled=settings.progress)
    entries = [
        _task_entry(task, cells[task], settings, [r.name for r in runs if r.name not in cells[task]]) for task in shown
    ]
    report = Report(
        {
            "generator": f"mmsoc {__version__}",
            "settings": {
                "bootstrap_replicates": settings.n_boot,
                "seed": settings.seed,
                "confidence": settings.confidence,
                "interval": "percentile bootstrap, items resampled with replacement; for runs with several "
                "seeds, seeds resampled too and the metric averaged over the drawn seeds",
                "min_clusters": settings.min_clusters,
            },
            "runs": [_run_summary(run, tasks) for run in runs],
            "tasks": entries,
            "confusion": {
                task: {name: _confusion(task, run_cell) for name, run_cell in cells[task].items()}
                for task in tasks
                if kind_of(task).confusion
            },
            "aggregates": {
                run.name: _aggregates({t: cells[t][run.name] for t in tasks if run.name in cells[t]}) for run in runs
            },
            "comparisons": [
                _compare(a.name, b.name, task, cells[task][a.name], cells[task][b.name], settings)
                for a, b in itertools.combinations(runs, 2)
                for task in tasks
                if a.name in cells[task] and b.name in cells[task]
            ],
        }
    )
    report.data["comparisons"] = [c for c in report.data["comparisons"] if c is not None]
    report.data["examples"] = {task: _examples(cells[task]) for task in tasks if kind_of(task).open_ended}
    used = sorted({key for entry in report.data["tasks"] for key in entry["metrics"]} | {"n"}, key=metric_order)
    report.data["methods"] = methods(tasks, used)
    report.data["notes"] = _notes(cells)
    report.lengths = {task: lengths for task in tasks if (lengths := _lengths(cells[task])) is not None}
    return report


N_EXAMPLES = 3
"""Items of a generation task shown with every run's prediction beside the reference."""


def _examples(cells: dict[str, Cell]) -> list[dict]:
    """The first items (by id) that every run answered: reference and each run's first-seed prediction
    (None where the response was not valid)."""
    common = sorted(set.intersection(*(set(cell.ids) for cell in cells.values())))[:N_EXAMPLES]
    out = []
    for item in common:
        rows = {name: cell.ids.index(item) for name, cell in cells.items()}
        first = next(iter(cells.values()))
        out.append(
            {
                "id": item,
                "reference": first.references[rows[next(iter(cells))]],
                "predictions": {name: cell.parsed[0][rows[name]] for name, cell in cells.items()},
            }
        )
    return out


def _score_cell(run: Run, task: str, settings: ReportSettings) -> Cell | None:
    """None when no item was answered under every seed."""
    by_seed = run.rows[task]
    seeds = sorted(by_seed)
    every = set.intersection(*(set(rows) for rows in by_seed.values()))
    ids = sorted(every)
    if not ids:
        return None
    union = set().union(*(set(rows) for rows in by_seed.values()))
    parsed = [[by_seed[s][i].parsed for i in ids] for s in seeds]
    references = [by_seed[seeds[0]][i].reference for i in ids]
    scores = [
        score_task_detailed(task, p, references, text_encoder=settings.text_encoder, fast=settings.fast) for p in parsed
    ]
    rows = [row for seed_rows in by_seed.values() for row in seed_rows.values()]
    sources = get_task(task).sources
    datasets = dataset_rows(ids, sources)
    dataset_of = {ids[i]: name for name, part in datasets.items() for i in part}
    by_dataset = {name: _success([row for row in rows if dataset_of.get(row.id) == name]) for name in datasets}
    return Cell(
        task,
        ids,
        seeds,
        scores,
        _success(rows),
        len(rows),
        len(union) - len(ids),
        parsed,
        references,
        datasets,
        by_dataset,
    )


def _success(rows: list[RunRow]) -> dict[str, float | None]:
    return success_rates([row.valid for row in rows], [row.strict_valid for row in rows])


def _run_summary(run: Run, tasks: list[str]) -> dict:
    keys = ("model", "tasks", "seeds", "greedy", "prompt_version", "data", "split")
    config = {key: run.config.get(key) for key in keys if key in run.config}
    return {
        "name": run.name,
        "path": str(run.path),
        "config": config,
        "missing_tasks": run.missing_tasks,
        "skipped_lines": run.skipped,
        "duplicate_rows": run.duplicates,
    }


def _intervals(
    cell: Cell,
    rows: np.ndarray,
    settings: ReportSettings,
    key: str,
    seed_offset: int,
    counts: dict[int, list[np.ndarray]],
) -> tuple[float, np.ndarray]:
    """(point value averaged over seeds, bootstrap replicates) of one metric on the rows ``rows``; for a
    task that pools datasets, the mean of each dataset's (items resampled within each dataset).
    ``counts`` keeps the resamples drawn for each number of items (the same ones for every metric)."""
    points, replicates = [], []
    for part in cell.parts(rows):
        stats = [s.stats[key].subset(part) for s in cell.scores]
        points.append(np.mean([stat.value() for stat in stats]))
        if len(part) not in counts:
            counts[len(part)] = resample_counts(len(part), settings.n_boot, settings.seed)
        per_seed = np.stack([replicate_values(stat, counts[len(part)]) for stat in stats])
        replicates.append(seed_mean_replicates(per_seed, settings.n_boot, settings.seed + seed_offset))
    return float(np.mean(points)), np.mean(replicates, axis=0)


def _seed_values(cell: Cell, rows: np.ndarray, key: str) -> list[float]:
    """The metric per seed on ``rows`` (averaged over datasets for a task that pools them)."""
    return [float(np.mean([s.stats[key].subset(part).value() for part in cell.parts(rows)])) for s in cell.scores]


def _interval_of(replicates: np.ndarray, n: int, settings: ReportSettings) -> tuple[float | None, float | None]:
    """The percentile interval, or none from fewer than ``settings.min_clusters`` items."""
    return percentile_interval(replicates, settings.confidence) if enough(n, settings.min_clusters) else (None, None)


def _lengths(cells: dict[str, Cell]) -> dict[str, np.ndarray] | None:
    """Response lengths in words of each run and of the references, for a task whose kind measures them."""
    first = next(iter(cells.values())).scores[0]
    if "length" not in first.stats or first.reference_lengths is None:
        return None
    runs = {name: np.concatenate([s.lengths for s in c.scores if s.lengths is not None]) for name, c in cells.items()}
    return {**runs, "reference": first.reference_lengths}


def _metric_cells(kind: str, cell: Cell, rows: np.ndarray, settings: ReportSettings) -> dict[str, dict]:
    """Each metric on ``rows``: value, interval (none from too few items), spread over seeds, why it has no value."""
    out: dict[str, dict] = {}
    counts: dict[int, list[np.ndarray]] = {}
    for key in cell.metric_keys():
        point, replicates = _intervals(cell, rows, settings, key, 1, counts)
        low, high = _interval_of(replicates, len(rows), settings)
        seed_values = _seed_values(cell, rows, key)
        out[key] = {
            "value": point,
            "low": low,
            "high": high,
            "seed_std": float(np.std(seed_values, ddof=1)) if len(seed_values) > 1 else None,
        }
        if not math.isfinite(point):
            out[key]["undefined"] = why_undefined(kind, key)
    return out


def _task_entry(task: str, cells: dict[str, Cell], settings: ReportSettings, missing_runs: list[str]) -> dict:
    spec = get_task(task)
    all_ids = set().union(*(set(cell.ids) for cell in cells.values()))
    keys = [key for key in all_keys() if any(key in cell.metric_keys() for cell in cells.values())]
    entry: dict[str, Any] = {
        "task": task,
        "dataset": spec.dataset,
        "kind": spec.kind,
        "headline": spec.headline,
        "metrics": keys,
        "items_in_any_run": len(all_ids),
        "runs_without_task": missing_runs,
        "runs": {},
    }
    for name, cell in cells.items():
        entry["runs"][name] = {
            "n": len(cell.ids),
            "rows": cell.n_rows,
            "seeds": cell.seeds,
            **cell.success,
            "missing_items": len(all_ids) - len(cell.ids),
            "items_missing_for_some_seeds": cell.partial_items,
            "metrics": _metric_cells(spec.kind, cell, np.arange(len(cell.ids)), settings),
            "info": info_counts(cell.scores),
        }
        if cell.datasets:
            entry["runs"][name]["averaged_over"] = list(cell.datasets)
            entry["runs"][name]["per_dataset"] = {
                dataset: {
                    "n": len(rows),
                    **cell.dataset_success[dataset],
                    "metrics": _metric_cells(spec.kind, cell, rows, settings),
                }
                for dataset, rows in cell.datasets.items()
            }
    return entry


def _confusion(task: str, cell: Cell) -> dict:
    """Counts summed over seeds: rows are true labels, columns predicted labels and 'invalid'."""
    labels = list(get_task(task).labels)
    columns = [*labels, INVALID]
    y_true = [canonical_label(ref, labels) for ref in cell.references] * len(cell.seeds)
    y_pred = [canonical_label(p, labels) or INVALID for parsed in cell.parsed for p in parsed]
    total = confusion_matrix(y_true, y_pred, labels=columns)[: len(labels)]
    return {"labels": labels, "columns": [*labels, "invalid"], "matrix": total.tolist()}


def _aggregates(cells: dict[str, Cell]) -> dict:
    """Unified score per paper task (groups averaged) and their mean; missing tasks are named, not averaged."""
    units: dict[str, list[str]] = {}
    for suite in dict.fromkeys(get_task(task).suite for task in cells):
        for task in task_ids(suite):
            units.setdefault(get_task(task).group or task, []).append(task)
    unified, missing = {}, []
    for unit, members in units.items():
        absent = [task for task in members if task not in cells]
        missing += absent
        unified[unit] = None if absent else float(np.mean([_unified(task, cells[task]) for task in members]))
    present = [value for value in unified.values() if value is not None]
    return {
        "unified": unified,
        "members": units,
        "mean": None if missing else float(np.mean(present)),
        "mean_of_present": float(np.mean(present)) if present else None,
        "missing_tasks": missing,
    }


def _unified(task: str, cell: Cell) -> float:
    """The headline metric averaged over seeds, and over datasets for a task that pools them (OCR),
    as the paper averages OCR over its two."""
    return float(np.mean(_seed_values(cell, np.arange(len(cell.ids)), get_task(task).headline)))


def _compare(name_a: str, name_b: str, task: str, a: Cell, b: Cell, settings: ReportSettings) -> dict | None:
    """Paired bootstrap of run a minus run b on the items both answered (same resamples for both); no
    interval and no verdict from fewer than ``settings.min_clusters`` shared items."""
    common = sorted(set(a.ids) & set(b.ids))
    if not common:
        return None
    rows_a = np.searchsorted(a.ids, common)
    rows_b = np.searchsorted(b.ids, common)
    metrics: dict[str, dict] = {}
    counts: dict[int, list[np.ndarray]] = {}
    for key in [k for k in a.metric_keys() if k in b.metric_keys()]:
        point_a, rep_a = _intervals(a, rows_a, settings, key, 2, counts)
        point_b, rep_b = _intervals(b, rows_b, settings, key, 3, counts)
        low, high = _interval_of(rep_a - rep_b, len(common), settings)
        verdict = interval_verdict(low, high, 0.0, len(common), "items", settings.min_clusters, DIFFERENCE_WORDS)
        finding = read_finding(point_a - point_b, low, high, 0.0, len(common), settings.min_clusters, difference=True)
        metrics[key] = {
            "a": point_a,
            "b": point_b,
            "difference": point_a - point_b,
            "low": low,
            "high": high,
            "verdict": verdict,
            "finding": finding,
        }
    return {
        "a": name_a,
        "b": name_b,
        "task": task,
        "n_common": len(common),
        "only_in_a": len(a.ids) - len(common),
        "only_in_b": len(b.ids) - len(common),
        "metrics": metrics,
    }


def _notes(cells: dict[str, dict[str, Cell]]) -> list[str]:
    """How text metrics were computed (normalisation, METEOR synonyms, BERTScore model), once each."""
    notes: list[str] = []
    for by_run in cells.values():
        for cell in by_run.values():
            info = cell.scores[0].info
            for key, label in (
                ("normalisation", "OCR"),
                ("meteor", "METEOR"),
                ("bertscore", "BERTScore model"),
                ("embedding_model", "Embedding-similarity model"),
            ):
                if key in info and f"{label}: {info[key]}" not in notes:
                    notes.append(f"{label}: {info[key]}")
    return notes
