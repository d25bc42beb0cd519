"""SuperTweetEval intimacy and similarity: Spearman's rho, negative values capped to 0 (the paper) and
uncapped (the official scripts); unread answers are 0, as the scripts read them."""

from __future__ import annotations

from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup
from mmsoc.metrics.suite_inputs import NumberInput

_TIED = "fewer than two items, or the answers or the references are all equal"


def compute(data: NumberInput) -> GroupResult:
    from mmsoc.metrics.suite_stats import spearman_stat

    return {
        "spearman": spearman_stat(data.pred, data.truth, cap_at_zero=True),
        "spearman_script": spearman_stat(data.pred, data.truth),
    }, {}


GROUP = MetricGroup(
    "ste_spearman",
    ("ste_score",),
    (
        Metric(
            "spearman",
            True,
            "Spearman's rho (scipy.stats.spearmanr, average ranks for ties) capped below at 0, the "
            "paper's score; computed by mmsoc with resample weights",
            ("scipy",),
            undefined=_TIED,
        ),
        Metric(
            "spearman_script",
            True,
            "Spearman's rho uncapped (tweet_intimacy.py / tweet_similarity.py)",
            ("scipy",),
            undefined=_TIED,
        ),
    ),
    compute,
    order=70,
)
