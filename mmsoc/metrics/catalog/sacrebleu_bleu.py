"""Corpus BLEU-1..4 with sacrebleu, beside the paper's NLTK BLEU."""

from __future__ import annotations

from mmsoc.metrics.text_groups import bleu_group

_SACREBLEU = (
    "sacrebleu BLEU(max_ngram_order={n}).corpus_score: orders 1..{n}, 13a tokens, exp smoothing, "
    "0-100 scale (not the paper's implementation)"
)

GROUP = bleu_group("bleu_sacrebleu", "bleu{n}_sacrebleu", _SACREBLEU, "sacrebleu", order=21)
