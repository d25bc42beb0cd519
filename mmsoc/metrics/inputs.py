"""What metric groups score: label indices, tag matrices or text pairs, prepared by the task kind, and the
multiple-choice questions of a desiq run."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LabelInput:
    """Gold and predicted label indices; a predicted index ``len(labels)`` is an invalid answer."""

    true_idx: np.ndarray
    pred_idx: np.ndarray
    labels: tuple[str, ...]


@dataclass(frozen=True)
class TagInput:
    """0/1 indicator matrices (items x topics) of the gold and predicted tags."""

    truth: np.ndarray
    pred: np.ndarray
    topics: tuple[str, ...]


@dataclass(frozen=True)
class TextInput:
    """Normalised predictions and references (one distinct pair each), and the text encoder for
    model-based metrics."""

    predictions: list[str]
    references: list[str]
    text_encoder: str | None = None


MCQA = "mcqa"
"""The kind name under which metric groups apply to multiple-choice questions (``desiq eval``)."""


@dataclass(frozen=True)
class MCQAInput:
    """The questions of one condition and configuration of a ``desiq eval`` run. A question is one prediction
    row, or every rotation of a circular question (correct only when correct under each of them)."""

    correct: np.ndarray
    """Per question, whether it was answered correctly by the run's answer rule."""
    correct_norm: np.ndarray | None
    """Per question, whether the highest length-normalised log-likelihood is the correct option's (None for
    written answers)."""
    chance: float
    """The accuracy of a uniformly random answer."""
    videos: tuple[str, ...]
    """Per question, its video: what intervals resample."""
    chosen: tuple[tuple[int | None, ...], ...]
    """Per question, the option chosen in each of its rows (None where no option was read)."""
    gold: tuple[tuple[int, ...], ...]
    """Per question, the correct option of each of its rows."""
    in_format: tuple[bool, ...] | None
    """Per row, whether the written reply was in the requested format by the strict rule (None for
    log-likelihood answers)."""
