"""The success rate of written answers to multiple-choice questions (``desiq eval --answer generate``)."""

from __future__ import annotations

from mmsoc.metrics.inputs import MCQA, MCQAInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: MCQAInput) -> GroupResult:
    rate = None if data.in_format is None else sum(data.in_format) / len(data.in_format)
    return {}, {"success_rate": rate}


GROUP = MetricGroup(
    "mcqa_success",
    (MCQA,),
    (
        Metric(
            "success_rate",
            True,
            "share of replies in the requested format by the strict rule, over every row (each rotation of a "
            "circular question); none for log-likelihood answers",
        ),
    ),
    compute,
    order=310,
)
