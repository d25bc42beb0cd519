"""SuperTweetEval yes/no tasks (TweetNERD, TempoWiC): accuracy, as the paper and the official scripts."""

from __future__ import annotations

from mmsoc.metrics.inputs import LabelInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: LabelInput) -> GroupResult:
    from mmsoc.metrics.stats import mean_stat

    return {"accuracy": mean_stat(data.true_idx == data.pred_idx)}, {}


GROUP = MetricGroup(
    "ste_accuracy",
    ("ste_yes_no",),
    (
        Metric(
            "accuracy",
            True,
            "share of items answered with the gold yes/no (tempo_wic.py / tweet_nerd.py); an unread answer is wrong",
        ),
    ),
    compute,
    order=70,
)
