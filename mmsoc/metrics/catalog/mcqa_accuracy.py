"""Multiple-choice accuracy of a ``desiq eval`` run against chance, with the counts its interval is drawn from."""

from __future__ import annotations

from mmsoc.metrics.inputs import MCQA, MCQAInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: MCQAInput) -> GroupResult:
    from mmsoc.metrics.stats import mean_stat

    return {"accuracy": mean_stat(data.correct)}, {
        "chance": data.chance,
        "n": len(data.correct),
        "videos": len(set(data.videos)),
    }


GROUP = MetricGroup(
    "mcqa_accuracy",
    (MCQA,),
    (
        Metric(
            "accuracy",
            True,
            "share of questions answered correctly: the option of highest log-likelihood (lm-evaluation-harness "
            "acc) for --answer loglik, the option the --parse rule reads for --answer generate; a circular "
            "question counts once, correct only under every rotation",
            interval="ci95",
        ),
        Metric(
            "chance",
            False,
            "accuracy of a uniformly random answer: 1/k for k options, (1/k)^k for a circular question",
        ),
    ),
    compute,
    order=300,
)
