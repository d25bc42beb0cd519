"""Corpus BLEU-1..4 with NLTK, the paper's BLEU (MM-Soc appendix D.1)."""

from __future__ import annotations

from mmsoc.metrics.text_groups import bleu_group

_NLTK = (
    "NLTK corpus_bleu on whitespace tokens, weights 1/{n} on orders 1..{n}, no smoothing (NLTK's default "
    "method0), 0-1 scale; the paper names NLTK but not the weights, smoothing or tokens"
)

GROUP = bleu_group("bleu", "bleu{n}", _NLTK, "nltk", order=20)
