"""OCR word and character error rates (jiwer's definitions, corpus level)."""

from __future__ import annotations

from mmsoc.metrics.inputs import TextInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: TextInput) -> GroupResult:
    from mmsoc.metrics.text import edit_rates

    return edit_rates(data.predictions, data.references), {}


GROUP = MetricGroup(
    "edit_rates",
    ("ocr",),
    (
        Metric(
            "wer",
            False,
            "corpus WER as jiwer.wer: jiwer's default word transforms, edits by rapidfuzz Levenshtein, "
            "total edits / total reference words",
            ("jiwer", "rapidfuzz"),
        ),
        Metric(
            "cer",
            False,
            "corpus CER as jiwer.cer: jiwer's default character transforms, edits by rapidfuzz "
            "Levenshtein, total edits / total reference characters",
            ("jiwer", "rapidfuzz"),
        ),
    ),
    compute,
    order=10,
)
