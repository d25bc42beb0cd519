"""SuperTweetEval sentiment: the paper's 1 - MAE^M capped at 0, MAE^M itself, and the GitHub script's macro-F1.

An unread answer is class -1, one step below ``strongly negative``, as the script's earlier MAE version and
its current macro-F1 both treat it (for macro-F1 it is a class of its own)."""

from __future__ import annotations

from mmsoc.metrics.inputs import LabelInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: LabelInput) -> GroupResult:
    import numpy as np

    from mmsoc.metrics.stats import ItemStat
    from mmsoc.metrics.suite_stats import macro_f1_stat, macro_mae_stat

    n = len(data.labels)
    as_minus_one = np.where(data.pred_idx >= n, -1, data.pred_idx)
    mae = macro_mae_stat(data.true_idx, as_minus_one, n)
    return {
        "mae_m_score": ItemStat(mae.values, lambda sums: np.maximum(0.0, 1.0 - mae.reduce(sums))),
        "mae_m": mae,
        "macro_f1_script": macro_f1_stat(data.true_idx, data.pred_idx, n + 1),
    }, {}


GROUP = MetricGroup(
    "ste_sentiment",
    ("ste_sentiment",),
    (
        Metric(
            "mae_m_score",
            True,
            "the paper's score: 1 - macro-averaged MAE over the gold classes (imbalanced-learn "
            "macro_averaged_mean_absolute_error), negative values capped to 0; computed by mmsoc "
            "from per-class error sums",
        ),
        Metric("mae_m", False, "macro-averaged mean absolute error of the class indices (unread answer = -1)"),
        Metric(
            "macro_f1_script",
            True,
            "the official GitHub script's score: scikit-learn f1_score(average='macro'), "
            "unread answers a class -1 of their own",
            ("scikit-learn",),
        ),
    ),
    compute,
    order=70,
)
