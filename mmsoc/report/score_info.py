"""What scoring noted beside the metrics of a report's cell."""

from __future__ import annotations

from typing import cast

from mmsoc.tasks import TaskScores


def info_counts(scores: list[TaskScores]) -> dict[str, int]:
    """Counts noted while scoring (invalid answers, unknown tags, empty responses), summed over seeds."""
    return {
        key: int(sum(cast(int, s.info[key]) for s in scores))
        for key, value in scores[0].info.items()
        if isinstance(value, int)
    }
