"""ROUGE-1/2/L F-measure per item with rouge-score."""

from __future__ import annotations

from mmsoc.metrics.inputs import TextInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: TextInput) -> GroupResult:
    from mmsoc.metrics.text import rouge

    return rouge(data.predictions, data.references), {}


_ROUGE = "rouge-score RougeScorer(use_stemmer=True), F-measure per item averaged; its tokenizer keeps a-z0-9 only"

GROUP = MetricGroup("rouge", ("generation",), (
    Metric("rouge1", True, _ROUGE),
    Metric("rouge2", True, _ROUGE),
    Metric("rougeL", True, _ROUGE + " (sentence-level LCS)"),
), compute, order=30)
