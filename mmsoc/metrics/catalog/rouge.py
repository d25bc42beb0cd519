"""ROUGE-1/2/L F per item with pltrdy rouge, the paper's ROUGE (MM-Soc appendix D.1)."""

from __future__ import annotations

from mmsoc.metrics.inputs import TextInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: TextInput) -> GroupResult:
    from mmsoc.metrics.text import rouge

    return rouge(data.predictions, data.references), {}


_PLTRDY = (
    "pltrdy rouge Rouge().get_scores(prediction, reference) F per item, averaged (its avg=True): "
    "sentences split on '.', words on spaces, case and punctuation kept, no stemming; a side without a "
    "sentence scores 0"
)

GROUP = MetricGroup(
    "rouge",
    ("generation",),
    (
        Metric("rouge1", True, _PLTRDY + " (rouge-1)", ("rouge",)),
        Metric("rouge2", True, _PLTRDY + " (rouge-2)", ("rouge",)),
        Metric("rougeL", True, _PLTRDY + " (rouge-l: summary-level union LCS)", ("rouge",)),
    ),
    compute,
    order=30,
)
