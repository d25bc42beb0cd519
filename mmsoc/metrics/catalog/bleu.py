"""Corpus BLEU-1..4 with sacrebleu."""

from __future__ import annotations

from mmsoc.metrics.inputs import TextInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: TextInput) -> GroupResult:
    from mmsoc.metrics.text import bleu

    return bleu(data.predictions, data.references), {}


GROUP = MetricGroup("bleu", ("ocr", "generation"), (
    Metric("bleu1", True, "sacrebleu BLEU(max_ngram_order=1).corpus_score, 13a tokens, exp smoothing, 0-100 scale"),
    Metric("bleu2", True, "sacrebleu corpus BLEU with n-gram orders 1..2 (as bleu1)"),
    Metric("bleu3", True, "sacrebleu corpus BLEU with n-gram orders 1..3 (as bleu1)"),
    Metric("bleu4", True, "sacrebleu corpus BLEU with n-gram orders 1..4 (as bleu1)"),
), compute, order=20)
