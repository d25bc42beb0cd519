"""Verdicts read from an interval, and only where there are enough clusters to draw one: one rule.

An interval that resamples clusters (videos, items, battles) needs several of them: from one video a
bootstrap gives an interval of width 0. With fewer than ``minimum`` clusters there is no interval and no
verdict, only the words :func:`too_few` returns. Every verdict against chance (``desiq probe``, ``desiq
eval``, ``desiq table``, ``mmsoc report``, arena agreement) and every paired difference uses these words
and gains a machine-readable ``finding`` beside them:

- ``no verdict``: too few clusters, or no interval;
- ``at chance`` (a difference: ``same``): the adjusted test does not separate it from chance (from 0);
- ``negligible``: it is separated, but the point estimate lies within ``--min-effect`` points of chance;
- ``above chance`` / ``below chance`` (``higher`` / ``lower``): separated, by at least ``--min-effect``.

"Adjusted" is family-wise over every verdict a table prints (:func:`judge`): Holm's step-down on two-sided
cluster-bootstrap p-values (statsmodels' ``multipletests``), with enough resamples to reach the smallest
adjusted level, and Bonferroni-adjusted percentile intervals for display (``ci_adjusted``; ``ci95`` is the
raw interval). Where only an interval is known (:func:`read_finding`), the interval is the test.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

MIN_CLUSTERS = 10
"""The fewest clusters an interval and a verdict are drawn from (``--min-clusters``)."""
ABOVE = "above chance"
BELOW = "below chance"
SAME = "at chance"
CHANCE_WORDS = (ABOVE, BELOW, SAME)
NO_INTERVAL = "no interval"

NO_VERDICT = "no verdict"
AT_CHANCE = "at chance"
NEGLIGIBLE = "negligible"
FINDINGS = (NO_VERDICT, AT_CHANCE, NEGLIGIBLE, ABOVE, BELOW)
"""``finding`` of a figure against chance."""
HIGHER = "higher"
LOWER = "lower"
SAME_DIFFERENCE = "same"
DIFFERENCE_FINDINGS = (NO_VERDICT, SAME_DIFFERENCE, NEGLIGIBLE, HIGHER, LOWER)
"""``finding`` of a paired difference against 0."""
DIFFERENCE_WORDS = (HIGHER, LOWER, SAME_DIFFERENCE)
"""A paired difference a − b against 0, read from its interval alone: a higher, lower, or not separated."""
MIN_EFFECT = 2.0
"""The smallest effect, in accuracy points, a finding calls more than negligible (``--min-effect``)."""
ALPHA = 0.05
"""The family-wise error rate of a table's findings."""
METHOD = (
    "family-wise over the table's verdicts: Holm's step-down on two-sided cluster-bootstrap p-values "
    "(statsmodels multipletests), Bonferroni-adjusted percentile intervals shown"
)
RULE = (
    "Verdicts: a figure's finding is 'no verdict' from too few clusters or no interval; 'at chance' (a difference: "
    "'same') where the adjusted test does not separate it from chance (from 0); 'negligible' where it is separated "
    "but lies within --min-effect points; else 'above chance' / 'below chance' ('higher' / 'lower'). Adjusted: "
    + METHOD
    + "; where a table keeps only intervals, the 95% interval is the test."
)
TAIL_DRAWS = 10
"""Bootstrap draws expected beyond the smallest adjusted level's tail (see :func:`resamples`)."""


def count(n: int, unit: str) -> str:
    """``1 video``, ``3 videos`` (``unit`` is the plural)."""
    return f"{n} {unit[:-1] if n == 1 and unit.endswith('s') else unit}"


def enough(clusters: int | None, minimum: int = MIN_CLUSTERS) -> bool:
    return clusters is not None and clusters >= minimum


def too_few(clusters: int, unit: str, minimum: int = MIN_CLUSTERS) -> str:
    """The row's words in place of an interval and a verdict."""
    return f"too few {unit} to tell ({count(clusters, unit)}), at least {minimum} needed"


def interval_verdict(
    low: float | None,
    high: float | None,
    level: float,
    clusters: int | None,
    unit: str,
    minimum: int = MIN_CLUSTERS,
    words: tuple[str, str, str] = CHANCE_WORDS,
) -> str:
    """Where the interval [low, high] lies against ``level``: ``words`` are (above, below, neither).
    ``clusters`` None: the count was not recorded, so no verdict either."""
    if clusters is None:
        return f"no verdict (number of {unit} not recorded)"
    if clusters < minimum:
        return too_few(clusters, unit, minimum)
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return NO_INTERVAL
    if low > level:
        return words[0]
    if high < level:
        return words[1]
    return words[2]


def effect_finding(
    estimate: float, level: float, separated: bool, min_effect: float = MIN_EFFECT, difference: bool = False
) -> str:
    """The finding of a figure already tested: ``separated`` from ``level`` (chance, or 0 for a difference),
    and by how much its point estimate is (``min_effect`` in points of a share)."""
    words = DIFFERENCE_FINDINGS if difference else FINDINGS
    if not separated:
        return words[1]
    if abs(estimate - level) * 100 < min_effect:
        return NEGLIGIBLE
    return words[3] if estimate > level else words[4]


def read_finding(
    estimate: float | None,
    low: float | None,
    high: float | None,
    level: float,
    clusters: int | None,
    minimum: int = MIN_CLUSTERS,
    min_effect: float = MIN_EFFECT,
    difference: bool = False,
) -> str:
    """The finding of one figure whose only test is its interval [low, high] (already adjusted where a
    family is printed)."""
    if not enough(clusters, minimum) or low is None or high is None:
        return NO_VERDICT
    if not (math.isfinite(low) and math.isfinite(high)):
        return NO_VERDICT
    point = (low + high) / 2 if estimate is None else estimate  # an entry that kept its interval alone
    return effect_finding(point, level, low > level or high < level, min_effect, difference)


@dataclass(frozen=True)
class Estimate:
    """One figure a table prints a verdict for: a mean of per-item ``values`` (a hit, a share of a hit, or a
    paired difference of two), each item's cluster, and the ``level`` it is read against (chance, or 0)."""

    values: np.ndarray
    clusters: tuple[str, ...]
    level: float
    difference: bool = False

    @property
    def estimate(self) -> float:
        return float(np.mean(self.values)) if len(self.values) else float("nan")

    @property
    def cluster_count(self) -> int:
        return len(set(self.clusters))


@dataclass(frozen=True)
class Judged:
    """What :func:`judge` makes of a :class:`Estimate`."""

    estimate: float
    level: float
    clusters: int
    ci95: tuple[float, float] | None
    ci_adjusted: tuple[float, float] | None
    p: float | None
    p_adjusted: float | None
    finding: str


def resamples(tests: int, n_boot: int, alpha: float = ALPHA) -> int:
    """Bootstrap replicates for ``tests`` family-wise tests: at least ``n_boot``, and enough that the
    smallest adjusted level (alpha / tests, two-sided) leaves ``TAIL_DRAWS`` draws in each tail."""
    return max(n_boot, math.ceil(2 * TAIL_DRAWS * max(tests, 1) / alpha))


def _draws(test: Estimate, counts: list[np.ndarray]) -> np.ndarray:
    """The mean of ``test.values`` on each resample ``counts`` draws of its clusters."""
    from mmsoc.metrics.stats import ItemStat, mean_stat, replicate_values

    stat = mean_stat(test.values)
    _, index = np.unique(np.asarray(test.clusters, dtype=object), return_inverse=True)
    sums = np.column_stack([np.bincount(index, weights=column) for column in stat.values.T])
    return replicate_values(ItemStat(sums, stat.reduce), counts)


def _p_value(draws: np.ndarray, level: float) -> float:
    """Two-sided percentile-bootstrap p-value of ``level``: twice the smaller tail share at or beyond it."""
    count = len(draws)
    below, above = np.sum(draws <= level), np.sum(draws >= level)
    return float(min(1.0, 2 * (min(below, above) + 1) / (count + 1)))


def judge(
    tests: Sequence[Estimate],
    min_clusters: int = MIN_CLUSTERS,
    min_effect: float = MIN_EFFECT,
    n_boot: int = 1000,
    seed: int = 0,
    alpha: float = ALPHA,
) -> list[Judged]:
    """Every figure of one table judged together: those with at least ``min_clusters`` clusters form the
    family, Holm-adjusted on bootstrap p-values; the others get ``no verdict`` and no interval."""
    from statsmodels.stats.multitest import multipletests

    from mmsoc.metrics.stats import percentile_interval, resample_counts

    family = [i for i, t in enumerate(tests) if t.cluster_count >= min_clusters and len(t.values)]
    count = resamples(len(family), n_boot, alpha)
    counts: dict[int, list[np.ndarray]] = {}  # per number of clusters: the same resamples (a paired bootstrap)
    draws = {}
    for i in family:
        k = tests[i].cluster_count
        if k not in counts:
            counts[k] = resample_counts(k, count, seed)
        draws[i] = _draws(tests[i], counts[k])
    p = {i: _p_value(draws[i], tests[i].level) for i in family}
    rejected, adjusted = multipletests([p[i] for i in family], alpha=alpha, method="holm")[:2] if family else ((), ())
    held = dict(zip(family, zip(rejected, adjusted)))
    out = []
    for i, test in enumerate(tests):
        if i not in held:
            words = DIFFERENCE_FINDINGS if test.difference else FINDINGS
            out.append(Judged(test.estimate, test.level, test.cluster_count, None, None, None, None, words[0]))
            continue
        separated, p_adjusted = held[i]
        finding = effect_finding(test.estimate, test.level, bool(separated), min_effect, test.difference)
        out.append(
            Judged(
                test.estimate,
                test.level,
                test.cluster_count,
                percentile_interval(draws[i], 0.95),
                percentile_interval(draws[i], 1 - alpha / len(family)),
                p[i],
                float(p_adjusted),
                finding,
            )
        )
    return out
