"""SuperTweetEval emoji: accuracy at top 5 (the gold emoji among the first five predicted)."""

from __future__ import annotations

from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup
from mmsoc.metrics.suite_inputs import TopKInput


def compute(data: TopKInput) -> GroupResult:
    from mmsoc.metrics.stats import mean_stat

    return {"accuracy_top5": mean_stat([gold in found[:5] for gold, found in zip(data.gold, data.predicted)])}, {}


GROUP = MetricGroup(
    "ste_emoji",
    ("ste_emoji",),
    (
        Metric(
            "accuracy_top5",
            True,
            "share of items whose gold emoji is among the first five predicted (tweet_emoji.py accuracy_top5)",
        ),
    ),
    compute,
    order=70,
)
