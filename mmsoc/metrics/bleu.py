"""sacrebleu's BLEU segment statistics for many pairs at once, equal to ``BLEU()._extract_corpus_statistics``.

Tokens come from sacrebleu's own 13a tokenizer, run once over all distinct texts; the clipped
n-gram matches are counted with numpy (:mod:`mmsoc.metrics.ngrams`) instead of one Counter per segment.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sacrebleu.metrics import BLEU
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

from mmsoc.metrics.ngrams import TokenTable, clipped_matches

_PRE_PASS_MARKS = ("\n", "&", "<skipped>")
"""What 13a's pre-pass rewrites (skip marks, newlines, HTML entities); texts without them skip it."""


def tokenize(bleu: BLEU, texts: Sequence[str]) -> list[str]:
    """``bleu._preprocess_segment(text)`` for every text, with one regex pass over all texts at once.

    Exact for 13a: its pre-pass is the identity on texts without :data:`_PRE_PASS_MARKS`; those
    go to its regex tokenizer padded with spaces, joined by newlines, which no pattern matches, so
    no match spans two texts. Texts with the marks, and other tokenizers, take the per-text path.
    """
    tokenizer = bleu.tokenizer
    post = getattr(tokenizer, "_post_tokenizer", None)
    if bleu.lowercase or not isinstance(tokenizer, Tokenizer13a) or not isinstance(post, TokenizerRegexp):
        return [bleu._preprocess_segment(text) for text in texts]
    stripped = [text.rstrip() for text in texts]
    plain = [i for i, text in enumerate(stripped) if not any(mark in text for mark in _PRE_PASS_MARKS)]
    out = [""] * len(texts)
    joined = "\n".join(f" {stripped[i]} " for i in plain)
    for pattern, replacement in post._re:
        joined = pattern.sub(replacement, joined)
    for i, segment in zip(plain, joined.split("\n")):
        out[i] = " ".join(segment.split())
    for i in sorted(set(range(len(texts))) - set(plain)):
        out[i] = bleu._preprocess_segment(texts[i])
    return out


def segment_statistics(hypotheses: Sequence[str], references: Sequence[str], max_order: int = 4) -> np.ndarray:
    """sacrebleu's per-segment BLEU statistics with one reference each, shape (n, 2 + 2 * max_order):
    hypothesis length, reference length, matched n-grams of orders 1..max_order, hypothesis n-grams."""
    texts: dict[str, int] = {}
    hyp = np.asarray([texts.setdefault(text, len(texts)) for text in hypotheses], dtype=np.int64)
    ref = np.asarray([texts.setdefault(text, len(texts)) for text in references], dtype=np.int64)
    table = TokenTable([line.split() for line in tokenize(BLEU(max_ngram_order=max_order), list(texts))])
    hyp_len, ref_len = table.lengths[hyp], table.lengths[ref]
    orders = range(1, max_order + 1)
    correct = [clipped_matches(table, hyp, ref, n) for n in orders]
    total = [np.maximum(hyp_len - n + 1, 0) for n in orders]
    return np.column_stack([hyp_len, ref_len, *correct, *total]).astype(np.float64)
