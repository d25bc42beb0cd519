"""Multiple-choice accuracy by length-normalised log-likelihood (``desiq eval --answer loglik``)."""

from __future__ import annotations

from mmsoc.metrics.inputs import MCQA, MCQAInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: MCQAInput) -> GroupResult:
    from mmsoc.metrics.stats import mean_stat

    return ({} if data.correct_norm is None else {"accuracy_norm": mean_stat(data.correct_norm)}), {}


GROUP = MetricGroup(
    "mcqa_norm",
    (MCQA,),
    (
        Metric(
            "accuracy_norm",
            True,
            "share of questions whose option of highest length-normalised log-likelihood is correct "
            "(lm-evaluation-harness acc_norm); log-likelihood answers only, circular questions as for accuracy",
            interval="ci95_norm",
        ),
    ),
    compute,
    order=320,
)
