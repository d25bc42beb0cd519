"""Label helpers shared by the scorers: canonical label names and tag lists as indicator matrices."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

INVALID = "<invalid>"
"""Stands for an unparseable prediction: outside every label set, so it always counts as wrong."""


def canonical_label(value: object, labels: Sequence[str]) -> str | None:
    """The label ``value`` names (exact, then case-insensitive after trimming), or None."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text in labels:
        return text
    lowered = {label.lower(): label for label in labels}
    return lowered.get(text.lower())


def parse_tags(value: object) -> list[str]:
    """Tags from a list, a JSON list string or a comma-separated string; None gives no tags."""
    if value is None:
        return []
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                value = text.strip("[]").split(",")
        else:
            value = text.split(",")
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"tags must be a list or a comma-separated string, got {type(value).__name__}")
    return [tag for tag in (str(t).strip().strip("\"'").strip().lower().replace(" ", "_") for t in value) if tag]


def indicator(tag_lists: Sequence[object], topics: Sequence[str]) -> tuple[np.ndarray, int]:
    """0/1 matrix (n, len(topics)) of known tags, and the number of unknown tags ignored."""
    index = {topic: j for j, topic in enumerate(topics)}
    matrix = np.zeros((len(tag_lists), len(topics)), dtype=np.int64)
    unknown = 0
    for i, value in enumerate(tag_lists):
        for tag in parse_tags(value):
            if tag in index:
                matrix[i, index[tag]] = 1
            else:
                unknown += 1
    return matrix, unknown
