"""BERTScore F1 per item with bert-score (model and layer named in the report)."""

from __future__ import annotations

from mmsoc.metrics.inputs import TextInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: TextInput) -> GroupResult:
    from mmsoc.metrics.embedding import bertscore

    stat, description = bertscore(data.predictions, data.references, data.text_encoder)
    return {"bertscore_f1": stat}, {"bertscore": description}


GROUP = MetricGroup(
    "bertscore",
    ("generation",),
    (
        Metric(
            "bertscore_f1",
            True,
            "bert-score BERTScorer F1 per item, averaged, no idf, no baseline rescaling; an "
            "empty side scores 0; scores depend on the model and layer named in the notes",
            ("bert-score",),
        ),
    ),
    compute,
    order=40,
    model_based=True,
)
