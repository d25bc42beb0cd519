"""Accuracy with a bootstrap interval resampled by video (questions of one video are not independent)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def cluster_bootstrap_ci(
    correct: Sequence[bool], clusters: Sequence[str], n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Percentile interval of accuracy when whole clusters (videos) are resampled with replacement."""
    correct = np.asarray(correct, dtype=float)
    if correct.size == 0:
        return (float("nan"), float("nan"))
    _, cluster_idx = np.unique(np.asarray(clusters, dtype=object), return_inverse=True)
    hits = np.bincount(cluster_idx, weights=correct)
    sizes = np.bincount(cluster_idx).astype(float)
    k = len(sizes)
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(k, np.full(k, 1.0 / k), size=n_boot)
    accuracies = (draws @ hits) / (draws @ sizes)
    alpha = (1 - level) / 2
    low, high = np.quantile(accuracies, [alpha, 1 - alpha])
    return float(low), float(high)
