"""metrics.json from the prediction log alone: re-scoring never needs the model.

Per task: ``n``; ``success_rate``, the share of responses in the requested format (strict parse, the
paper's success rate) and ``success_rate_lenient`` (an answer found by the lenient parser, which is
what gets scored); ``metrics``. A task that pools datasets (OCR) is scored per dataset
(``per_dataset``) and its ``metrics`` are the mean over those datasets (``averaged_over``), as the
paper averages OCR over Hateful Memes and Memotion.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np


def summarize(rows: Sequence[dict[str, Any]], tasks: Sequence[str], fast: bool = False) -> dict[str, dict[str, Any]]:
    """Per task: {"n", "success_rate", "success_rate_lenient", "metrics", ...} from logged rows.

    Each seed is scored on its own (invalid responses scored as None, i.e. wrong); ``metrics`` is
    the mean over seeds, ``metrics_std`` their sample standard deviation (ddof=1, as reports use) and ``per_seed`` the
    single-seed scores (both only with more than one seed). Success rates pool all responses.
    ``fast`` skips the model-based text metrics (BERTScore, embedding similarity).
    """
    from mmsoc.metrics.datasets import dataset_rows
    from mmsoc.tasks import get_task, score_task_averaged
    from mmsoc.tasks.scoring import undefined_metrics

    by_task: dict[str, dict[Any, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        by_task[row["task"]][row["seed"]].append(row)
    summary: dict[str, dict[str, Any]] = {}
    for task in tasks:
        seeds = by_task.get(task)
        if not seeds:
            continue
        scored: dict[Any, dict[str, float | int]] = {}
        parts: dict[Any, dict[str, dict[str, float | int]]] = {}
        for seed, group in seeds.items():
            scored[seed], by_dataset = score_task_averaged(
                task,
                [r["parsed"] if r["valid"] else None for r in group],
                [r["reference"] for r in group],
                [str(r["id"]) for r in group],
                fast=fast,
            )
            parts[seed] = {name: scores.metrics for name, scores in by_dataset.items() if name}
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
        if undefined_metrics(entry["metrics"]):
            entry["undefined"] = undefined_metrics(entry["metrics"])
        summary[task] = entry
    return summary


def success_rates(valid: Sequence[bool], strict: Sequence[bool | None]) -> dict[str, float | None]:
    """``success_rate``: share of responses in the requested format (the strict parse; None when a
    response does not record it); ``success_rate_lenient``: share the lenient parser could read."""
    return {
        "success_rate": None if None in strict else float(np.mean(strict)),
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
