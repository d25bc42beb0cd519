"""metrics.json from the prediction log alone: re-scoring never needs the model.

Per task: ``n``; ``success_rate``, the share of responses in the requested format (strict parse, the
paper's success rate) and ``success_rate_lenient`` (an answer found by the lenient parser, which is
what gets scored); ``metrics``. A task that pools datasets (OCR) is scored per dataset
(``per_dataset``) and its ``metrics`` are the mean over those datasets (``averaged_over``), as the
paper averages OCR over Hateful Memes and Memotion. ``ci95`` holds the 95% interval of the headline metric
(``{"macro_f1": [low, high]}``): a percentile bootstrap over items (``BOOTSTRAP`` replicates, seed 0, items
resampled within each dataset of a pooled task, the seeds resampled too when there are several), absent
where the metric has no per-item statistics. From fewer than ``MIN_CLUSTERS`` items there is no interval
(``mmsoc.metrics.verdict``): ``ci95`` is null and ``ci95_note`` says why in the verdicts' words (``too few items to
tell (2 items), at least 10 needed``). ``undefined`` names each metric without a value (null) and why, in
words (``{"auc": "the references hold one class"}``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from mmsoc.metrics.verdict import enough, too_few

BOOTSTRAP = 1000
"""Replicates of the headline interval in metrics.json (``ci95``)."""


def summarize(
    rows: Sequence[dict[str, Any]], tasks: Sequence[str], fast: bool = False, progress: bool = False
) -> dict[str, dict[str, Any]]:
    """Per task: {"n", "success_rate", "success_rate_lenient", "metrics", ...} from logged rows.

    Each seed is scored on its own (invalid responses scored as None, i.e. wrong); ``metrics`` is
    the mean over seeds, ``metrics_std`` their sample standard deviation (ddof=1, as reports use) and ``per_seed`` the
    single-seed scores (both only with more than one seed). Success rates pool all responses.
    ``fast`` skips the model-based text metrics (BERTScore, embedding similarity); ``progress`` shows a step
    per task on stderr (``mmsoc.core.progress``).
    """
    from mmsoc.core.progress import track

    by_task: dict[str, dict[Any, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        by_task[row["task"]][row["seed"]].append(row)
    summary: dict[str, dict[str, Any]] = {}
    for task in track(tasks, f"metrics of {len(tasks)} tasks", enabled=progress):
        if by_task.get(task):
            summary[task] = _task_entry(task, by_task[task], fast)
    return summary


def _task_entry(task: str, seeds: dict[Any, list[dict[str, Any]]], fast: bool) -> dict[str, Any]:
    """One task's entry of metrics.json from its rows per seed (see ``summarize``)."""
    from mmsoc.metrics.datasets import dataset_rows
    from mmsoc.tasks import get_task, score_task_averaged
    from mmsoc.tasks.scoring import undefined_metrics

    scored: dict[Any, dict[str, float | int]] = {}
    parts: dict[Any, dict[str, dict[str, float | int]]] = {}
    stats: dict[Any, dict[str, Any]] = {}
    for seed, group in seeds.items():
        scored[seed], by_dataset = score_task_averaged(
            task,
            [r["parsed"] if r["valid"] else None for r in group],
            [r["reference"] for r in group],
            [str(r["id"]) for r in group],
            fast=fast,
        )
        parts[seed] = {name: scores.metrics for name, scores in by_dataset.items() if name}
        stats[seed] = by_dataset
    pooled = [r for group in seeds.values() for r in group]
    entry: dict[str, Any] = {
        "n": len({r["id"] for r in pooled}),
        **_success(pooled),
        "metrics": _mean(scored.values()),
    }
    if len(scored) > 1:
        entry["metrics_std"] = _mean(scored.values(), _sample_std)
        entry["per_seed"] = {str(seed): scored[seed] for seed in sorted(scored, key=str)}
    rows_by_dataset = dataset_rows([str(r["id"]) for r in pooled], get_task(task).sources)
    if rows_by_dataset:
        entry["averaged_over"] = list(rows_by_dataset)
        entry["per_dataset"] = {
            name: {
                "n": len({pooled[i]["id"] for i in part}),
                **_success([pooled[i] for i in part]),
                "metrics": _mean(p[name] for p in parts.values() if name in p),
            }
            for name, part in rows_by_dataset.items()
        }
    entry.update(_interval_entry(get_task(task).headline, list(stats.values()), entry["n"]))
    if undefined_metrics(entry["metrics"], task):
        entry["undefined"] = undefined_metrics(entry["metrics"], task)
    return entry


def _interval_entry(headline: str, seeds: Sequence[dict[str, Any]], n: int) -> dict[str, Any]:
    """``ci95`` of the headline from at least ``MIN_CLUSTERS`` items; below that a null ``ci95`` and its
    ``ci95_note``; nothing without per-item statistics."""
    if not enough(n):
        return {"ci95": None, "ci95_note": too_few(n, "items")}
    interval = headline_interval(headline, seeds)
    return {} if interval is None else {"ci95": {headline: interval}}


def headline_interval(headline: str, seeds: Sequence[dict[str, Any]], n_boot: int = BOOTSTRAP) -> list[float] | None:
    """The 95% interval of ``headline`` from each seed's scores per dataset (``TaskScores`` by dataset name):
    the same item resamples for every seed, the mean over datasets per replicate, the seeds resampled; None
    without per-item statistics or when the seeds scored different numbers of items."""
    from mmsoc.metrics.stats import percentile_interval, replicate_values, resample_counts, seed_mean_replicates

    first = seeds[0]
    sizes = {name: part.metrics["n"] for name, part in first.items()}
    if any({name: part.metrics["n"] for name, part in s.items()} != sizes for s in seeds):
        return None
    if any(headline not in part.stats for s in seeds for part in s.values()):
        return None
    draws = {name: resample_counts(int(n), n_boot, 0) for name, n in sizes.items()}
    per_seed = np.array(
        [np.mean([replicate_values(s[name].stats[headline], draws[name]) for name in sizes], axis=0) for s in seeds]
    )
    low, high = percentile_interval(seed_mean_replicates(per_seed, n_boot, 0))
    return [low, high] if np.isfinite(low) and np.isfinite(high) else None


def success_rates(valid: Sequence[bool], strict: Sequence[bool | None]) -> dict[str, float | None]:
    """``success_rate``: share of responses in the requested format (the strict parse; None when a
    response does not record it); ``success_rate_lenient``: share the lenient parser could read."""
    return {
        "success_rate": None if None in strict else float(np.mean([bool(s) for s in strict])),
        "success_rate_lenient": float(np.mean(valid)),
    }


def _success(rows: Sequence[dict[str, Any]]) -> dict[str, float | None]:
    return success_rates([r["valid"] for r in rows], [r.get("strict_valid") for r in rows])


def _mean(scores, reduce=np.mean) -> dict[str, float | None]:
    """Reduce each numeric metric over seeds (keys in first-seen order; the count n is the entry's)."""
    scores = list(scores)
    keys = [
        k
        for k, v in scores[0].items()
        if k != "n" and (v is None or isinstance(v, (int, float))) and not isinstance(v, bool)
    ]
    values = {k: [float(s[k]) for s in scores if s.get(k) is not None] for k in keys}
    reduced = {k: float(reduce(v)) if v else None for k, v in values.items()}
    return {k: v if v is None or np.isfinite(v) else None for k, v in reduced.items()}  # undefined: null


def _sample_std(values: list[float]) -> float:
    return float(np.std(values, ddof=1))
