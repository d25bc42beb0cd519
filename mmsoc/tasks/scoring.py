"""Parsing and scoring by task id, through the task's kind handler."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mmsoc.tasks.kinds.base import Parsed, TaskScores, answer_part
from mmsoc.tasks.registry import get_task, kind_of

PARSE_MODES = ("strict", "lenient")


def parse_response(task_id: str, raw: str, mode: str = "lenient") -> Parsed:
    """Parse one response of ``task_id`` in ``mode``; a trailing ``Explanation: ...`` (what
    explanation fine-tuning teaches a model to write) is cut off first for explainable kinds."""
    if mode not in PARSE_MODES:
        raise ValueError(f"unknown parse mode {mode!r}; expected one of {PARSE_MODES}")
    spec = get_task(task_id)
    kind = kind_of(spec)
    text = raw or ""
    return kind.parse(spec, answer_part(text) if kind.explainable else text, mode == "strict")


def score_task_detailed(task_id: str, predictions: Sequence[Any], references: Sequence[Any], *,
                        text_encoder: str | None = None, fast: bool = False) -> TaskScores:
    """Metric values, per-item statistics (for bootstrap intervals) and method notes of one task.

    Unparseable predictions arrive as None and count as wrong (classification), as no tags
    (tagging) or as the empty string (text tasks). ``fast`` skips the model-based metrics
    (BERTScore, embedding similarity). Undefined values (e.g. AUC on one class) are NaN.
    """
    spec = get_task(task_id)
    return kind_of(spec).score(spec, predictions, references, text_encoder=text_encoder, fast=fast)


def score_task(task_id: str, predictions: Sequence[Any], references: Sequence[Any], *,
               text_encoder: str | None = None, fast: bool = False) -> dict[str, float | int]:
    """The flat metrics of one task and ``n``."""
    return score_task_detailed(task_id, predictions, references, text_encoder=text_encoder, fast=fast).metrics
