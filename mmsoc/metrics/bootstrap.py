"""Bootstrap intervals resampled by cluster (video: questions of one video are not independent)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mmsoc.metrics.stats import ItemStat, mean_stat


def cluster_bootstrap_ci(
    correct: Sequence[bool] | np.ndarray,
    clusters: Sequence[str],
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile interval of accuracy when whole clusters (videos) are resampled with replacement."""
    return cluster_interval(mean_stat(np.asarray(correct, dtype=float)), clusters, n_boot, seed, level)


def cluster_interval(
    stat: ItemStat, clusters: Sequence[str], n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Percentile interval of a metric of per-item statistics when whole clusters (one per item) are resampled
    with replacement."""
    if len(stat.values) == 0:
        return (float("nan"), float("nan"))
    _, cluster_idx = np.unique(np.asarray(clusters, dtype=object), return_inverse=True)
    sums = np.column_stack([np.bincount(cluster_idx, weights=column) for column in stat.values.T])
    k = len(sums)
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(k, np.full(k, 1.0 / k), size=n_boot)
    values = stat.reduce(draws @ sums)
    alpha = (1 - level) / 2
    low, high = np.quantile(values, [alpha, 1 - alpha])
    return float(low), float(high)
