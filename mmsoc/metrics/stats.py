"""Per-item sufficient statistics and the bootstrap over items (and seeds) built on them.

Every metric here is a function of the sum over items of a small per-item vector: a mean is
(value, 1), WER is (errors, reference words), BLEU is sacrebleu's segment statistics, macro-F1 is
a one-hot confusion cell. Resampling items then only re-weights rows, so intervals for every metric
come from one matrix product per block of bootstrap replicates.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

Reducer = Callable[[np.ndarray], np.ndarray]
"""Maps summed statistics of shape (B, k) to B metric values."""

_BLOCK_CELLS = 4_000_000
"""Bootstrap count matrices are generated in blocks of at most this many cells."""


@dataclass(frozen=True)
class ItemStat:
    """Per-item statistics ``values`` (n, k) of one metric; the metric is ``reduce(sum over items)``."""

    values: np.ndarray
    reduce: Reducer

    def value(self) -> float:
        return float(self.reduce(self.values.sum(0, keepdims=True))[0])

    def subset(self, rows: np.ndarray) -> ItemStat:
        return ItemStat(self.values[rows], self.reduce)


def _divide(num: np.ndarray, den: np.ndarray, empty: float) -> np.ndarray:
    out = np.full(np.broadcast(num, den).shape, empty, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _ratio(sums: np.ndarray) -> np.ndarray:
    return _divide(sums[:, 0], sums[:, 1], np.nan)


def mean_stat(values: Sequence[float] | np.ndarray) -> ItemStat:
    """The mean over items of one value per item."""
    values = np.asarray(values, dtype=np.float64)
    return ItemStat(np.column_stack([values, np.ones_like(values)]), _ratio)


def _error_rate(sums: np.ndarray) -> np.ndarray:
    return np.where(sums[:, 1] == 0, sums[:, 0], _divide(sums[:, 0], sums[:, 1], 0.0))


def error_rate_stat(errors: Sequence[float] | np.ndarray, reference_lengths: Sequence[float]) -> ItemStat:
    """Total errors over total reference length (corpus WER / CER); jiwer's rule when that length
    is 0: the rate is the number of errors (insertions)."""
    return ItemStat(
        np.column_stack([np.asarray(errors, np.float64), np.asarray(reference_lengths, np.float64)]), _error_rate
    )


def _macro_prf(tp: np.ndarray, predicted: np.ndarray, actual: np.ndarray) -> dict[str, np.ndarray]:
    """Macro precision / recall / F1 over the labels (axis -1) that are predicted or true at least once
    in each replicate (scikit-learn's default label set), zero where undefined (zero_division=0)."""
    present = (predicted + actual) > 0
    count = present.sum(-1)

    def average(values: np.ndarray) -> np.ndarray:
        return _divide(np.where(present, values, 0.0).sum(-1), count, 0.0)

    return {
        "macro_precision": average(_divide(tp, predicted, 0.0)),
        "macro_recall": average(_divide(tp, actual, 0.0)),
        "macro_f1": average(_divide(2 * tp, predicted + actual, 0.0)),
    }


def confusion_stats(true_idx: np.ndarray, pred_idx: np.ndarray, n_labels: int) -> dict[str, ItemStat]:
    """Macro P/R/F1 and one-vs-rest AUC of hard predictions from one-hot confusion cells.

    Labels are ``0..n_labels-1``; a prediction index ``n_labels`` is an invalid answer (a miss for
    the true class, never a prediction of any class). Macro metrics average over the labels that
    occur as truth or prediction. The AUC of a 0/1 score is (1 + TPR - FPR) / 2; the macro AUC
    averages it over the labels that have both positive and negative items.
    """
    width = n_labels + 1
    cells = np.zeros((len(true_idx), n_labels * width), dtype=np.float64)
    cells[np.arange(len(true_idx)), np.asarray(true_idx) * width + np.asarray(pred_idx)] = 1.0
    labels = np.arange(n_labels)

    def parts(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        matrix = sums.reshape(len(sums), n_labels, width)
        tp = matrix[:, labels, labels]
        predicted = matrix[:, :, :n_labels].sum(1)
        actual = matrix.sum(2)
        return tp, predicted, actual, matrix.sum((1, 2))[:, None]

    def prf(key: str) -> Reducer:
        return lambda sums: _macro_prf(*parts(sums)[:3])[key]

    def auc(sums: np.ndarray) -> np.ndarray:
        tp, predicted, actual, total = parts(sums)
        negatives = total - actual
        defined = (actual > 0) & (negatives > 0)
        per_label = 0.5 * (1 + _divide(tp, actual, 0.0) - _divide(predicted - tp, negatives, 0.0))
        return _divide(np.where(defined, per_label, 0.0).sum(1), defined.sum(1), np.nan)

    stats = {key: ItemStat(cells, prf(key)) for key in ("macro_precision", "macro_recall", "macro_f1")}
    stats["auc"] = ItemStat(cells, auc)
    return stats


def multilabel_stats(true: np.ndarray, pred: np.ndarray) -> dict[str, ItemStat]:
    """Macro P/R/F1 of 0/1 indicator matrices (n, L) over the labels that occur."""
    t, p = true.astype(np.float64), pred.astype(np.float64)
    values = np.hstack([t * p, p, t])
    k = true.shape[1]

    def prf(key: str) -> Reducer:
        return lambda sums: _macro_prf(sums[:, :k], sums[:, k : 2 * k], sums[:, 2 * k :])[key]

    return {key: ItemStat(values, prf(key)) for key in ("macro_precision", "macro_recall", "macro_f1")}


def resample_counts(n_items: int, n_boot: int, seed: int) -> list[np.ndarray]:
    """Bootstrap replicate counts (blocks of shape (b, n_items), b rows summing to n_items each).

    Replicate ``r`` draws ``n_items`` item indices with replacement; the same seed gives the same
    replicates, so two runs scored on the same items share their resamples (a paired bootstrap).
    """
    rng = np.random.default_rng(seed)
    per_block = max(1, _BLOCK_CELLS // max(n_items, 1))
    blocks = []
    for start in range(0, n_boot, per_block):
        size = min(per_block, n_boot - start)
        draws = rng.integers(0, n_items, size=(size, n_items))
        offsets = draws + (np.arange(size) * n_items)[:, None]
        blocks.append(np.bincount(offsets.ravel(), minlength=size * n_items).reshape(size, n_items).astype(np.float64))
    return blocks


def replicate_values(stat: ItemStat, counts: list[np.ndarray]) -> np.ndarray:
    """The metric on every bootstrap replicate: shape (n_boot,)."""
    return np.concatenate([stat.reduce(block @ stat.values) for block in counts]) if counts else np.zeros(0)


def seed_mean_replicates(per_seed: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """Average (S, B) per-seed replicates over a resample of the S seeds drawn for each replicate.

    With one seed this is the identity; with several, the interval covers seed variation too.
    """
    n_seeds = per_seed.shape[0]
    if n_seeds == 1:
        return per_seed[0]
    picks = np.random.default_rng([seed, 1]).integers(0, n_seeds, size=(n_boot, n_seeds))
    return per_seed[picks, np.arange(n_boot)[:, None]].mean(1)


def percentile_interval(replicates: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval; NaN replicates (metric undefined on a resample) are ignored."""
    finite = replicates[np.isfinite(replicates)]
    if finite.size == 0:
        return (float("nan"), float("nan"))
    tail = 50 * (1 - confidence)
    low, high = np.percentile(finite, [tail, 100 - tail])
    return (float(low), float(high))
