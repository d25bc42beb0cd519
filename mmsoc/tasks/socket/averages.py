"""The paper's Table 2 summary: unweighted means of the task scores by category, by type, and overall.

A task's score is its headline: macro-F1 for classification, pair and span tasks, (r + 1) / 2 for
regression. "Each reported value is the average of the scores on every task within the specified
group" (§4.2); the overall average is the mean over all tasks (not over the category means).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from mmsoc.tasks.registry import get_task, short_name, task_ids
from mmsoc.tasks.socket.table import CATEGORIES, TYPES, type_of


def table2(scores: Mapping[str, float | None]) -> dict[str, object]:
    """Category, type and overall means of ``scores`` (task id -> headline score).

    Means are over the tasks scored with a defined value; tasks of the suite not scored are listed
    under ``missing``, scored tasks whose value is undefined (e.g. r of constant answers) under
    ``undefined``; ``complete`` says whether all 58 tasks entered the means."""
    defined = {
        task: float(value) for task, value in scores.items() if value is not None and not math.isnan(float(value))
    }

    def mean(tasks: list[str]) -> float | None:
        values = [defined[task] for task in tasks if task in defined]
        return sum(values) / len(values) if values else None

    every = list(task_ids("socket"))
    return {
        "categories": {
            category: mean([t for t in every if get_task(t).category == category]) for category in CATEGORIES
        },
        "types": {task_type: mean([t for t in every if type_of(get_task(t)) == task_type]) for task_type in TYPES},
        "overall": mean(every),
        "tasks": len([t for t in every if t in defined]),
        "missing": [short_name(t) for t in every if t not in scores],
        "undefined": [short_name(t) for t in every if t in scores and t not in defined],
        "complete": all(t in defined for t in every),
    }
