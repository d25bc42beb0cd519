"""Ties counted as a share: the expected hit of a uniform tie-break."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def hit_share(scores: Sequence[float], answer: int) -> float:
    """1/t when the answer is among the t options tied at the top score, else 0."""
    values = np.asarray(scores, dtype=float)
    top = values == values.max()
    return float(top[answer]) / float(top.sum())


def tied(scores: Sequence[float]) -> bool:
    """Whether two or more options share the top score."""
    values = np.asarray(scores, dtype=float)
    return bool((values == values.max()).sum() > 1)
