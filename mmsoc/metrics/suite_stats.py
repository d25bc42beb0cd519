"""Per-item statistics (:class:`ItemStat`) for the text suites' metrics: masked confusion cells, Pearson and
Spearman correlations, macro-averaged MAE, entity counts. Each reduces summed statistics, so bootstrap
intervals come from the same matrix products as every other metric."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mmsoc.metrics.stats import ItemStat, confusion_stats


def masked(stat: ItemStat, keep: np.ndarray) -> ItemStat:
    """``stat`` over the kept items only: the others' statistics are zero, so they never enter a sum."""
    return ItemStat(stat.values * np.asarray(keep, dtype=np.float64)[:, None], stat.reduce)


def macro_f1_stat(
    true_idx: np.ndarray, pred_idx: np.ndarray, n_labels: int, keep: np.ndarray | None = None
) -> ItemStat:
    """scikit-learn's macro-F1 (labels present in gold or prediction, zero_division=0) over the kept items
    (NaN when none is kept); a prediction index outside ``0..n_labels-1`` is no class (an error for the gold
    class)."""
    pred = np.where((pred_idx >= 0) & (pred_idx < n_labels), pred_idx, n_labels)
    stat = confusion_stats(np.asarray(true_idx), pred, n_labels)["macro_f1"]
    if keep is None:
        return stat
    kept = masked(stat, keep)
    return ItemStat(kept.values, lambda sums: np.where(sums.sum(1) > 0, kept.reduce(sums), np.nan))


def _pearson(sums: np.ndarray) -> np.ndarray:
    n, sx, sy, sxx, syy, sxy = (sums[:, k] for k in range(6))
    with np.errstate(divide="ignore", invalid="ignore"):
        nz = np.where(n > 0, n, 1.0)
        cov, vx, vy = sxy - sx * sy / nz, sxx - sx * sx / nz, syy - sy * sy / nz
        r = cov / np.sqrt(vx * vy)
    return np.where((n >= 2) & (vx > 0) & (vy > 0), np.clip(r, -1.0, 1.0), np.nan)


def pearson_stat(x: np.ndarray, y: np.ndarray, keep: np.ndarray, rescale: bool = False) -> ItemStat:
    """Pearson r of x and y over the kept items (NaN when undefined); ``rescale`` gives (r + 1) / 2.

    Values are centred on their kept means first (r does not change), which keeps the sums accurate."""
    keep = np.asarray(keep, dtype=bool)
    x = np.where(keep, np.asarray(x, dtype=np.float64), 0.0)
    y = np.where(keep, np.asarray(y, dtype=np.float64), 0.0)
    if keep.any():
        x, y = np.where(keep, x - x[keep].mean(), 0.0), np.where(keep, y - y[keep].mean(), 0.0)
    values = np.column_stack([keep.astype(np.float64), x, y, x * x, y * y, x * y])
    reduce = (lambda sums: (_pearson(sums) + 1) / 2) if rescale else _pearson
    return ItemStat(values, reduce)


def spearman_stat(x: np.ndarray, y: np.ndarray, cap_at_zero: bool = False) -> ItemStat:
    """Spearman's rho of x and y (``scipy.stats.spearmanr``: Pearson r of average ranks); ``cap_at_zero``
    reports negative values as 0.

    Ranks depend on the whole sample, so an item's statistic is its one-hot indicator and the reduction
    ranks the items with the weights a resample gives them (ties get their average rank)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)

    def reduce(sums: np.ndarray) -> np.ndarray:
        out = np.array([_weighted_spearman(x, y, weights) for weights in sums])
        return np.maximum(out, 0.0) if cap_at_zero else out

    return ItemStat(np.eye(len(x)), reduce)


def _weighted_ranks(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Average ranks (1-based) of each distinct value when item i occurs ``weights[i]`` times."""
    order = np.argsort(values, kind="stable")
    distinct, inverse = np.unique(values[order], return_inverse=True)
    counts = np.bincount(inverse, weights=weights[order], minlength=len(distinct))
    ends = np.cumsum(counts)
    average = ends - (counts - 1) / 2
    ranks = np.empty(len(values))
    ranks[order] = average[inverse]
    return ranks


def _weighted_spearman(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> float:
    used = weights > 0
    if used.sum() < 2:
        return float("nan")
    w, rx, ry = weights[used], _weighted_ranks(x[used], weights[used]), _weighted_ranks(y[used], weights[used])
    mx, my = np.average(rx, weights=w), np.average(ry, weights=w)
    cov = np.sum(w * (rx - mx) * (ry - my))
    var = np.sum(w * (rx - mx) ** 2) * np.sum(w * (ry - my) ** 2)
    return float(cov / np.sqrt(var)) if var > 0 else float("nan")


def macro_mae_stat(true_idx: np.ndarray, pred_idx: np.ndarray, n_labels: int) -> ItemStat:
    """Macro-averaged mean absolute error (imbalanced-learn's ``macro_averaged_mean_absolute_error``): the
    mean over the gold classes present of the mean |pred - gold| of their items."""
    true_idx = np.asarray(true_idx)
    error = np.abs(np.asarray(pred_idx, dtype=np.float64) - true_idx)
    values = np.zeros((len(true_idx), 2 * n_labels))
    rows = np.arange(len(true_idx))
    values[rows, true_idx] = 1.0
    values[rows, n_labels + true_idx] = error

    def reduce(sums: np.ndarray) -> np.ndarray:
        counts, errors = sums[:, :n_labels], sums[:, n_labels:]
        present = counts > 0
        per_class = np.divide(errors, counts, out=np.zeros_like(errors), where=present)
        return np.divide(per_class.sum(1), present.sum(1), out=np.full(len(sums), np.nan), where=present.sum(1) > 0)

    return ItemStat(values, reduce)


def entity_counts(truth: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> tuple[np.ndarray, list[str]]:
    """Per item and entity type: (true positives, predicted, gold) entity counts, as seqeval counts them
    (its ``get_entities``, default IOB reading); columns ``[tp..., pred..., gold...]`` and the types."""
    from seqeval.metrics.sequence_labeling import get_entities

    gold_sets = [set(get_entities(list(tags))) for tags in truth]
    pred_sets = [set(get_entities(list(tags))) for tags in pred]
    types = sorted({entity_type for entities in gold_sets + pred_sets for entity_type, _, _ in entities})
    column = {entity_type: j for j, entity_type in enumerate(types)}
    k = len(types)
    values = np.zeros((len(gold_sets), 3 * k))
    for i, (gold, guess) in enumerate(zip(gold_sets, pred_sets)):
        for offset, entities in ((0, gold & guess), (k, guess), (2 * k, gold)):
            for entity_type, _, _ in entities:
                values[i, offset + column[entity_type]] += 1
    return values, types
