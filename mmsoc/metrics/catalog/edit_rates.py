"""OCR word and character error rates (jiwer's definitions, corpus level)."""

from __future__ import annotations

from mmsoc.metrics.inputs import TextInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: TextInput) -> GroupResult:
    from mmsoc.metrics.text import edit_rates

    return edit_rates(data.predictions, data.references), {}


GROUP = MetricGroup("edit_rates", ("ocr",), (
    Metric("wer", False, "jiwer.process_words, corpus level: total edits / total reference words"),
    Metric("cer", False, "jiwer.process_characters, corpus level: total edits / total reference characters"),
), compute, order=10)
