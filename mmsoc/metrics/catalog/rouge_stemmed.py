"""ROUGE-1/2/L F-measure per item with rouge-score (Porter stemming), beside the paper's pltrdy ROUGE."""

from __future__ import annotations

from mmsoc.metrics.inputs import TextInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: TextInput) -> GroupResult:
    from mmsoc.metrics.text import rouge_stemmed

    return rouge_stemmed(data.predictions, data.references), {}


_ROUGE_SCORE = (
    "rouge-score RougeScorer(use_stemmer=True) F-measure per item, averaged; lower case, tokens a-z0-9 "
    "only (not the paper's implementation)"
)

GROUP = MetricGroup(
    "rouge_stemmed",
    ("generation",),
    (
        Metric("rouge1_rouge_score", True, _ROUGE_SCORE, ("rouge-score",)),
        Metric("rouge2_rouge_score", True, _ROUGE_SCORE, ("rouge-score",)),
        Metric("rougeL_rouge_score", True, _ROUGE_SCORE + " (sentence-level LCS)", ("rouge-score",)),
    ),
    compute,
    order=31,
)
