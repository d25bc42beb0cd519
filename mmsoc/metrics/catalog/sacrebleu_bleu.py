"""Corpus BLEU-1..4 with sacrebleu, beside the paper's NLTK BLEU."""

from __future__ import annotations

from mmsoc.metrics.inputs import TextInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: TextInput) -> GroupResult:
    from mmsoc.metrics.text import bleu_sacrebleu

    return bleu_sacrebleu(data.predictions, data.references), {}


_SACREBLEU = (
    "sacrebleu BLEU(max_ngram_order={n}).corpus_score: orders 1..{n}, 13a tokens, exp smoothing, "
    "0-100 scale (not the paper's implementation)"
)

GROUP = MetricGroup(
    "bleu_sacrebleu",
    ("ocr", "generation"),
    tuple(Metric(f"bleu{n}_sacrebleu", True, _SACREBLEU.format(n=n), ("sacrebleu",)) for n in (1, 2, 3, 4)),
    compute,
    order=21,
)
