"""Word-bigram Jaccard similarity per item."""

from __future__ import annotations

from mmsoc.metrics.inputs import TextInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: TextInput) -> GroupResult:
    from mmsoc.metrics.text import bigram_similarity

    return {"bigram_similarity": bigram_similarity(data.predictions, data.references)}, {}


GROUP = MetricGroup("bigram", ("generation",), (
    Metric("bigram_similarity", True, "Jaccard similarity of lower-cased word-bigram sets per item (scikit-learn "
                                      "CountVectorizer), averaged; 0 when neither side has a bigram"),
), compute, order=42)
