"""What the text suites' metric groups score, prepared by their task kinds (SocKET, SuperTweetEval)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ChoiceInput:
    """SocKET classification: gold class and the class each reader found (-1: a missing answer)."""

    true_idx: np.ndarray
    official: np.ndarray
    lenient: np.ndarray
    n_labels: int
    penalty_seed: int
    """Seeds the random wrong class a missing answer gets when missing answers are penalised."""


@dataclass(frozen=True)
class NumberInput:
    """Gold and predicted numbers; NaN marks a missing prediction."""

    truth: np.ndarray
    pred: np.ndarray


@dataclass(frozen=True)
class SpanInput:
    """SocKET spans: each item's text, gold spans and the candidate spans read from its answer (None: missing)."""

    texts: list[str]
    gold: list[list[str]]
    candidates: list[list[str] | None]


@dataclass(frozen=True)
class TagSequenceInput:
    """IOB tags per token of each item, gold and predicted (same lengths)."""

    truth: list[list[str]]
    pred: list[list[str]]


@dataclass(frozen=True)
class TopKInput:
    """Each item's gold label and the labels predicted for it, best first."""

    gold: list[str]
    predicted: list[list[str]]
