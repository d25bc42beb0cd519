"""SuperTweetEval QA: SQuAD v1.1 answer F1 (the official script's ``f1``, on 0-1) and exact match beside it."""

from __future__ import annotations

from mmsoc.metrics.inputs import TextInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: TextInput) -> GroupResult:
    from mmsoc.metrics.squad import exact_match, token_f1
    from mmsoc.metrics.stats import mean_stat

    pairs = list(zip(data.predictions, data.references))
    return {
        "f1": mean_stat([token_f1(p, r) for p, r in pairs]),
        "exact_match": mean_stat([exact_match(p, r) for p, r in pairs]),
    }, {}


GROUP = MetricGroup(
    "ste_squad",
    ("ste_qa",),
    (
        Metric(
            "f1",
            True,
            "SQuAD v1.1 token F1 after its answer normalisation (lower case, no punctuation or "
            "articles), averaged (tweet_qa.py via evaluate's squad, divided by 100)",
        ),
        Metric(
            "exact_match", True, "SQuAD v1.1 exact match after normalisation (the script drops it; reported beside)"
        ),
    ),
    compute,
    order=70,
)
