"""Per scored item, whether it counts as answered: the paper's rule (``correct``) and ties counted as a share
(``shares``, ``shared_hits``; ``desiq.probes.ties``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from desiq.probes.ties import hit_share
from desiq.records import PAIRS, MCQAItem

__all__ = ["correct", "gold", "shared_hits", "shares"]


def shared_hits(scores: Sequence[np.ndarray], items: Sequence[MCQAItem]) -> np.ndarray:
    """Per item, the share of a hit: 1/t when the correct option is among the t tied top scores, else 0
    (``desiq.probes.ties``), in AK and A2 alike."""
    return np.array([hit_share(s.tolist(), gold(item)) for s, item in zip(scores, items)])


def gold(item: MCQAItem) -> int:
    """The correct option's index of a scored (labelled) item."""
    if item.answer_idx is None:
        raise ValueError(f"{item.id}: only labelled questions are scored")
    return item.answer_idx


def correct(scores: Sequence[np.ndarray], items: Sequence[MCQAItem], config: str) -> np.ndarray:
    """Per item, whether it counts as answered: AK by ``np.argmax`` (first wins ties), A2 only when the
    correct option scores strictly higher than the other."""
    if config != PAIRS:
        return np.array([int(np.argmax(s)) == item.answer_idx for s, item in zip(scores, items)])
    return np.array([bool(np.all(s[list(item.incorrect_idx)] < s[item.answer_idx])) for s, item in zip(scores, items)])


def shares(scores: Sequence[np.ndarray], items: Sequence[MCQAItem]) -> np.ndarray:
    """Per item, the expected hit of a uniform tie-break (``desiq.probes.ties``): 1/t where the correct option
    is one of t options tied at the top score (a tied A2 pair: half), what the verdicts read: the paper's
    rule (``correct``) counts a tie as the first option (AK) or as wrong (A2), so that ties alone would move
    a figure off chance."""
    return np.array(
        [hit_share(list(s), item.answer_idx) for s, item in zip(scores, items) if item.answer_idx is not None]
    )
