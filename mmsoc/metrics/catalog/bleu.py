"""Corpus BLEU-1..4 with NLTK, the paper's BLEU (MM-Soc appendix D.1)."""

from __future__ import annotations

from mmsoc.metrics.inputs import TextInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: TextInput) -> GroupResult:
    from mmsoc.metrics.text import bleu

    return bleu(data.predictions, data.references), {}


_NLTK = (
    "NLTK corpus_bleu on whitespace tokens, weights 1/{n} on orders 1..{n}, no smoothing (NLTK's default "
    "method0), 0-1 scale; the paper names NLTK but not the weights, smoothing or tokens"
)

GROUP = MetricGroup(
    "bleu",
    ("ocr", "generation"),
    tuple(Metric(f"bleu{n}", True, _NLTK.format(n=n), ("nltk",)) for n in (1, 2, 3, 4)),
    compute,
    order=20,
)
