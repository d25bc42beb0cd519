"""The task contract: one handler per task kind builds requests, parses answers, writes training
targets, draws random answers and scores predictions, so no other module asks what kind a task is."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from mmsoc.core.records import Example
from mmsoc.models.base import Image, Part, Request, Text
from mmsoc.tasks.spec import TaskSpec

EXPLANATION_MARKER = " Explanation: "
"""Separates the answer from a teacher's explanation in training targets; the answer comes first."""


@dataclass(frozen=True)
class Parsed:
    """A parsed response: the label (a label string, a list of topics, or text) and whether it is valid."""

    label: Any
    ok: bool


INVALID = Parsed(None, False)


@dataclass
class TaskScores:
    """Metric values of one task, per-item statistics for intervals, and notes on how they were computed."""

    task: str
    metrics: dict[str, float | int]
    stats: dict[str, Any]
    info: dict[str, object] = field(default_factory=dict)
    lengths: np.ndarray | None = None
    reference_lengths: np.ndarray | None = None


class TaskKind(Protocol):
    """What every task kind provides. ``text_baseline`` names the strategy of the text-only
    baseline (``single_label``, ``multi_label``, ``nearest_reference`` or ``none``)."""

    name: str
    explainable: bool
    text_baseline: str
    confusion: bool
    """Whether reports show a confusion matrix over the labels."""
    # A kind whose requests are text alone (the text suites' kinds) also sets ``text_only = True``, so the
    # evaluation loop never skips its items for want of an image. A kind whose predictions must be text or a
    # number (free text, scores) has ``check_prediction(spec, value)``: the value to score, or ValueError for
    # one that cannot be scored (a number where text is expected, NaN, an infinity), so the row is skipped.

    def request(self, spec: TaskSpec, example: Example, instruction: str, seed: int | None = None) -> Request: ...

    def parse(self, spec: TaskSpec, raw: str, strict: bool) -> Parsed: ...

    def target(self, spec: TaskSpec, label: Any) -> str: ...

    def random_answer(self, spec: TaskSpec, rng: np.random.Generator) -> str: ...

    def check_reference(self, spec: TaskSpec, value: Any) -> Any: ...

    def score(
        self,
        spec: TaskSpec,
        predictions: Sequence[Any],
        references: Sequence[Any],
        *,
        text_encoder: str | None = None,
        fast: bool = False,
    ) -> TaskScores: ...


def compose_prompt(instruction: str, text: str = "") -> str:
    """The task instruction preceded by the item's text, when it has one."""
    return f'Text: "{text}"\n{instruction}' if text else instruction


def image_request(example: Example, instruction: str, seed: int | None = None, with_text: bool = True) -> Request:
    """The request of an image task: the item's images, then its text and the instruction."""
    parts: list[Part] = [Image(path) for path in example.images]
    parts.append(Text(compose_prompt(instruction, example.text if with_text else "")))
    return Request(example.task, example.id, tuple(parts), seed, example.text)


def answer_part(response: str) -> str:
    """The answer part of a response that may carry an explanation after the marker."""
    return response.split(EXPLANATION_MARKER.strip(), 1)[0].strip()


def with_explanation(answer: str, explanation: str | None) -> str:
    """``answer`` followed by `` Explanation: ...`` when an explanation is given."""
    explanation = " ".join((explanation or "").split())
    return answer + EXPLANATION_MARKER + explanation if explanation else answer


def check_lengths(task: str, predictions: Sequence[Any], references: Sequence[Any]) -> None:
    if len(predictions) != len(references):
        raise ValueError(f"{task}: {len(predictions)} predictions but {len(references)} references")
    if not references:
        raise ValueError(f"{task}: nothing to score")


def text_value(value: Any) -> str:
    """``value`` where text is expected: a string, else ValueError naming what it is (a number, a dict...)."""
    if not isinstance(value, str):
        raise ValueError(f"expected text, got {type(value).__name__} {value!r:.60}")
    return value


def text_prediction(value: Any) -> str | None:
    """A prediction of a text kind: a string, or None for an answer that is missing; ValueError otherwise."""
    return None if value is None else text_value(value)


def finite_number(value: Any) -> float:
    """``value`` as a finite float (a number or its text); ValueError for NaN, infinities, booleans and others."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"expected a number, got {type(value).__name__} {value!r:.60}")
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"expected a number, got {value!r:.60}") from None
    if not math.isfinite(number):
        raise ValueError(f"expected a finite number, got {value!r:.60} (NaN and infinities are not scores)")
    return number
