"""The SuperTweetEval summary: the unified mean of the twelve headline scores, and the paper's clusters."""

from __future__ import annotations

import math
from collections.abc import Mapping

from mmsoc.tasks.registry import short_name, task_ids
from mmsoc.tasks.supertweeteval.tasks import CLUSTERS, SUITE


def unified(scores: Mapping[str, float | None]) -> dict[str, object]:
    """Unweighted means of ``scores`` (task id -> headline score): over all tasks (``unified``) and per
    cluster, each over the tasks scored with a defined value; unscored tasks are listed as ``missing``."""
    defined = {
        short_name(task): float(value)
        for task, value in scores.items()
        if value is not None and not math.isnan(float(value))
    }

    def mean(names) -> float | None:
        values = [defined[name] for name in names if name in defined]
        return sum(values) / len(values) if values else None

    every = [short_name(task) for task in task_ids(SUITE)]
    return {
        "unified": mean(every),
        "clusters": {name: mean(members) for name, members in CLUSTERS.items()},
        "tasks": len([name for name in every if name in defined]),
        "missing": [name for name in every if name not in defined],
        "complete": all(name in defined for name in every),
    }
