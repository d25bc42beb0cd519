"""Vectorised n-gram counting over many tokenised texts: clipped matches of (hypothesis, reference) pairs.

Texts are integer token ids laid end to end; the n-grams of order k get dense ids from one
``np.unique`` per order, and the clipped overlap of a pair (sum over n-grams of the smaller count)
from sorted (pair, n-gram) keys, with no Python loop over pairs.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class TokenTable:
    """Token ids of many texts, flat, with each text's start and length."""

    def __init__(self, token_lists: Sequence[Sequence[str]]):
        vocab: dict[str, int] = {}
        flat = [vocab.setdefault(token, len(vocab)) for tokens in token_lists for token in tokens]
        self.ids = np.asarray(flat, dtype=np.int64)
        self.vocab_size = max(len(vocab), 1)
        self.lengths = np.asarray([len(tokens) for tokens in token_lists], dtype=np.int64)
        self.starts = np.cumsum(self.lengths) - self.lengths
        self._offsets = np.arange(len(self.ids)) - np.repeat(self.starts, self.lengths)
        self._remaining = np.repeat(self.lengths, self.lengths) - self._offsets
        self._grams = [self.ids]

    def grams(self, order: int) -> np.ndarray:
        """Dense id of the n-gram of ``order`` starting at each position (-1 where it runs past the text)."""
        while len(self._grams) < order:
            k = len(self._grams) + 1
            previous, out = self._grams[-1], np.full(len(self.ids), -1, dtype=np.int64)
            valid = np.flatnonzero(self._remaining >= k)
            keys = previous[valid] * self.vocab_size + self.ids[valid + k - 1]
            out[valid] = np.unique(keys, return_inverse=True)[1].ravel()
            self._grams.append(out)
        return self._grams[order - 1]

    def positions(self, texts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(row, flat position) of every token of ``texts[row]`` for each row."""
        lengths = self.lengths[texts]
        rows = np.repeat(np.arange(len(texts)), lengths)
        inside = np.arange(len(rows)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        return rows, self.starts[texts][rows] + inside


def _counts(rows: np.ndarray, grams: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    keep = grams >= 0
    return np.unique(rows[keep] * width + grams[keep], return_counts=True)


def clipped_matches(table: TokenTable, hyp: np.ndarray, ref: np.ndarray, order: int) -> np.ndarray:
    """Per pair ``(table text hyp[i], table text ref[i])``: the sum over n-grams of ``order`` of
    min(count in hypothesis, count in reference)."""
    grams = table.grams(order)
    width = int(grams.max(initial=0)) + 1
    hyp_rows, hyp_pos = table.positions(hyp)
    ref_rows, ref_pos = table.positions(ref)
    hyp_keys, hyp_counts = _counts(hyp_rows, grams[hyp_pos], width)
    ref_keys, ref_counts = _counts(ref_rows, grams[ref_pos], width)
    common, in_hyp, in_ref = np.intersect1d(hyp_keys, ref_keys, assume_unique=True, return_indices=True)
    matched = np.minimum(hyp_counts[in_hyp], ref_counts[in_ref])
    return np.bincount(common // width, weights=matched, minlength=len(hyp)).astype(np.int64)
