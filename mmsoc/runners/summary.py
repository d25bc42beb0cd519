"""metrics.json from the prediction log alone: re-scoring never needs the model."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

def summarize(rows: Sequence[dict[str, Any]], tasks: Sequence[str], fast: bool = False) -> dict[str, dict[str, Any]]:
    """Per task: {"n", "success_rate", "success_rate_strict", "metrics", ...} from logged rows.

    Each seed is scored on its own (invalid responses scored as None, i.e. wrong); ``metrics`` is
    the mean over seeds, ``metrics_std`` their sample standard deviation (ddof=1, as reports use) and ``per_seed`` the
    single-seed scores (both only with more than one seed). Success rates pool all responses.
    ``fast`` skips the model-based text metrics (BERTScore, embedding similarity).
    """
    from mmsoc.tasks import score_task

    by_task: dict[str, dict[Any, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        by_task[row["task"]][row["seed"]].append(row)
    summary: dict[str, dict[str, Any]] = {}
    for task in tasks:
        seeds = by_task.get(task)
        if not seeds:
            continue
        scored = {seed: score_task(task, [r["parsed"] if r["valid"] else None for r in group],
                                   [r["reference"] for r in group], fast=fast) for seed, group in seeds.items()}
        pooled = [r for group in seeds.values() for r in group]
        entry: dict[str, Any] = {
            "n": len({r["id"] for r in pooled}),
            "success_rate": float(np.mean([r["valid"] for r in pooled])),
            "success_rate_strict": float(np.mean([r.get("strict_valid", r["valid"]) for r in pooled])),
            "metrics": _mean(scored.values()),
        }
        if len(scored) > 1:
            entry["metrics_std"] = _mean(scored.values(), _sample_std)
            entry["per_seed"] = {str(seed): scored[seed] for seed in sorted(scored, key=str)}
        summary[task] = entry
    return summary


def _mean(scores, reduce=np.mean) -> dict[str, float]:
    """Reduce each numeric metric over seeds (keys in first-seen order; the count n is the entry's)."""
    scores = list(scores)
    keys = [k for k, v in scores[0].items() if k != "n" and isinstance(v, (int, float)) and not isinstance(v, bool)]
    return {k: float(reduce([s[k] for s in scores if s.get(k) is not None])) for k in keys
            if any(s.get(k) is not None for s in scores)}


def _sample_std(values: list[float]) -> float:
    return float(np.std(values, ddof=1))
