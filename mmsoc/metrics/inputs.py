"""What metric groups score: label indices, tag matrices or text pairs, prepared by the task kind."""

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
