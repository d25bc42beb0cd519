"""Response length in words."""

from __future__ import annotations

from mmsoc.metrics.inputs import TextInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: TextInput) -> GroupResult:
    from mmsoc.metrics.normalize import word_lengths
    from mmsoc.metrics.stats import mean_stat

    return {"length": mean_stat(word_lengths(data.predictions))}, {}


GROUP = MetricGroup(
    "length",
    ("generation",),
    (Metric("length", True, "response length in whitespace-separated words, averaged"),),
    compute,
    order=45,
)
