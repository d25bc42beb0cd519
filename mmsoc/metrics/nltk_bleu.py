"""NLTK's ``corpus_bleu`` as per-item sufficient statistics, so that bootstrap replicates re-weight rows.

``nltk.translate.bleu_score.corpus_bleu`` sums, over items, the clipped n-gram matches and
``max(1, hypothesis n-grams)`` of each order (its ``modified_precision``) and the hypothesis and
reference lengths; BLEU is ``BP * exp(sum_n w_n log p_n)`` with no smoothing: an order with no
match enters as ``sys.float_info.min`` (NLTK's ``method0``), and no unigram match at all gives 0.
The counts come from the vectorised n-gram table of :mod:`mmsoc.metrics.ngrams`; the tests compare
every value with ``corpus_bleu`` itself.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence

import numpy as np

from mmsoc.metrics.ngrams import TokenTable, clipped_matches

_NO_MATCH_LOG = math.log(sys.float_info.min)


def statistics(
    hypotheses: Sequence[Sequence[str]], references: Sequence[Sequence[str]], max_order: int = 4
) -> np.ndarray:
    """Per pair of token lists (one reference each), shape (n, 2 + 2 * max_order): hypothesis length,
    reference length, clipped matches of orders 1..max_order, NLTK's precision denominators."""
    table = TokenTable(list(hypotheses) + list(references))
    hyp = np.arange(len(hypotheses))
    ref = hyp + len(hypotheses)
    hyp_len, ref_len = table.lengths[hyp], table.lengths[ref]
    orders = range(1, max_order + 1)
    matches = [clipped_matches(table, hyp, ref, n) for n in orders]
    denominators = [np.maximum(hyp_len - n + 1, 1) for n in orders]
    return np.column_stack([hyp_len, ref_len, *matches, *denominators]).astype(np.float64)


def corpus_bleu(sums: np.ndarray, order: int, max_order: int = 4) -> np.ndarray:
    """BLEU-``order`` (uniform weights ``1/order`` over orders 1..order) from summed statistics (B, k)."""
    hyp_len, ref_len = sums[:, 0], sums[:, 1]
    matches = sums[:, 2 : 2 + order]
    denominators = sums[:, 2 + max_order : 2 + max_order + order]
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(matches > 0, np.log(matches / denominators), _NO_MATCH_LOG)
        penalty = np.where(hyp_len > ref_len, 1.0, np.where(hyp_len == 0, 0.0, np.exp(1 - ref_len / hyp_len)))
    score = penalty * np.exp((1.0 / order * logs).sum(1))
    return np.where(matches[:, 0] == 0, 0.0, score)
