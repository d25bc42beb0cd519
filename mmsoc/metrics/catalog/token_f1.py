"""OCR token F1 (the paper's macro-F1 for OCR): bag-of-words overlap of prediction and reference."""

from __future__ import annotations

from mmsoc.metrics.inputs import TextInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: TextInput) -> GroupResult:
    from mmsoc.metrics.text import token_f1

    return {"macro_f1": token_f1(data.predictions, data.references)}, {}


GROUP = MetricGroup(
    "token_f1",
    ("ocr",),
    (
        Metric(
            "macro_f1",
            True,
            "mean over items of bag-of-words token F1 between normalised prediction and "
            "reference, whitespace tokens counted with scikit-learn CountVectorizer (1 when both "
            "are empty)",
            ("scikit-learn",),
        ),
    ),
    compute,
    order=65,
)
