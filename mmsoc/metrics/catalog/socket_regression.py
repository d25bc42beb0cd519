"""SocKET regression tasks, as the official ``experiments/zeroshot/eval.py`` scores them: Pearson r of the
numbers read and the gold scores (``corr_original``) and (r + 1) / 2 (``corr_score``, the paper's score),
missing answers dropped; ``hit_rate``, the share read; ``*_penalized``: missing answers read as 0 (the
script's ``--penalize_missing``)."""

from __future__ import annotations

from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup
from mmsoc.metrics.suite_inputs import NumberInput

_FLAT = "fewer than two answers were read, or the answers read or their references are all equal"
_FLAT_PENALIZED = "the answers (missing ones read as 0) or the references are all equal"
_R = (
    "Pearson r (pandas Series.corr) of the numbers read and the gold scores, missing answers dropped; "
    "computed by mmsoc from per-item sums"
)


def compute(data: NumberInput) -> GroupResult:
    import numpy as np

    from mmsoc.metrics.stats import mean_stat
    from mmsoc.metrics.suite_stats import pearson_stat

    read = ~np.isnan(data.pred)
    zeroed = np.where(read, data.pred, 0.0)
    every = np.ones(len(read), dtype=bool)
    return {
        "corr_original": pearson_stat(data.pred, data.truth, read),
        "corr_score": pearson_stat(data.pred, data.truth, read, rescale=True),
        "hit_rate": mean_stat(read),
        "corr_original_penalized": pearson_stat(zeroed, data.truth, every),
        "corr_score_penalized": pearson_stat(zeroed, data.truth, every, rescale=True),
    }, {"missing_answers": int((~read).sum())}


GROUP = MetricGroup(
    "socket_regression",
    ("socket_reg",),
    (
        Metric("corr_original", True, _R, undefined=_FLAT),
        Metric(
            "corr_score",
            True,
            "(r + 1) / 2 of corr_original (eval.py corr_score; the paper's regression score)",
            undefined=_FLAT,
        ),
        Metric("hit_rate", True, "share of answers with exactly one number (eval.py hit_rate)"),
        Metric(
            "corr_original_penalized",
            True,
            "Pearson r with missing answers read as 0 (eval.py --penalize_missing)",
            undefined=_FLAT_PENALIZED,
        ),
        Metric("corr_score_penalized", True, "(r + 1) / 2 with missing answers read as 0", undefined=_FLAT_PENALIZED),
    ),
    compute,
    order=70,
)
