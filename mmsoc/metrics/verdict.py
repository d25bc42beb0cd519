"""Verdicts read from an interval, and only where there are enough clusters to draw one.

An interval that resamples clusters (videos, items, battles) needs several of them: from one video a
bootstrap gives an interval of width 0. With fewer than ``minimum`` clusters there is no interval and no
verdict, only the words :func:`too_few` returns. Every verdict against chance (``desiq probe``, ``desiq
eval``, ``desiq table``, ``mmsoc report``, arena agreement) and every paired difference uses these words.
"""

from __future__ import annotations

import math

MIN_CLUSTERS = 10
"""The fewest clusters an interval and a verdict are drawn from (``--min-clusters``)."""
ABOVE = "above chance"
BELOW = "below chance"
SAME = "not different from chance"
CHANCE_WORDS = (ABOVE, BELOW, SAME)
DIFFERENCE_WORDS = ("a higher", "b higher", "not separated")
"""A paired difference a − b against 0."""
NO_INTERVAL = "no interval"


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
