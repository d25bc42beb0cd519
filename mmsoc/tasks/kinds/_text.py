"""Scoring shared by the free-text kinds (OCR, generation): each distinct pair is scored once."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mmsoc.metrics.inputs import TextInput
from mmsoc.tasks.kinds.base import TaskScores


def score_text(
    kind: str, task: str, predictions: Sequence[str], references: Sequence[str], text_encoder: str | None, fast: bool
) -> TaskScores:
    """Run the kind's metric groups once per distinct (prediction, reference) pair and give every item
    its pair's statistics: each per-item statistic depends on its own pair only."""
    from mmsoc.metrics.normalize import word_lengths
    from mmsoc.metrics.registry import run_groups

    pairs: dict[tuple[str, str], int] = {}
    inverse = np.asarray([pairs.setdefault(pair, len(pairs)) for pair in zip(predictions, references)], dtype=np.int64)
    data = TextInput([p for p, _ in pairs], [r for _, r in pairs], text_encoder)
    stats, info = run_groups(kind, data, fast)
    stats = {key: stat.subset(inverse) for key, stat in stats.items()}
    info["empty_predictions"] = sum(not p.strip() for p in predictions)
    metrics: dict[str, float | int] = {key: stat.value() for key, stat in stats.items()}
    return TaskScores(
        task,
        {**metrics, "n": len(references)},
        stats,
        info,
        np.asarray(word_lengths(predictions)),
        np.asarray(word_lengths(references)),
    )
