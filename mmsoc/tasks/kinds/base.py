"""The task contract: one handler per task kind builds requests, parses answers, writes training
targets, draws random answers, checks references and predictions and scores them, and says what callers
need to know about its tasks, so no other module asks what kind a task is."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from mmsoc.core.records import Example
from mmsoc.models.base import Image, Part, Request, Text
from mmsoc.tasks.spec import TaskSpec

if TYPE_CHECKING:
    from mmsoc.metrics.registry import MetricInput
    from mmsoc.metrics.stats import ItemStat

EXPLANATION_MARKER = " Explanation: "
"""Separates the answer from a teacher's explanation in training targets; the answer comes first."""


@dataclass(frozen=True)
class Parsed:
    """A parsed response: the label (a label string, a list of topics, or text) and whether it is valid."""

    label: object
    ok: bool


INVALID = Parsed(None, False)


@dataclass
class TaskScores:
    """Metric values of one task, per-item statistics for intervals, and notes on how they were computed."""

    task: str
    metrics: dict[str, float | int]
    stats: dict[str, ItemStat]
    info: dict[str, object] = field(default_factory=dict)
    lengths: np.ndarray | None = None
    reference_lengths: np.ndarray | None = None


class TaskKind:
    """What every task kind provides, with the defaults most kinds share; a kind module subclasses it,
    overriding only what differs, and declares ``KIND = TheKind()``.

    A kind must give ``name``, ``parse`` and ``target``, and either ``metric_input`` (what its metric groups
    score; the default ``score`` runs them on it) or a ``score`` of its own."""

    name: str = ""
    explainable: bool = False
    """Whether fine-tuning may teach explanations after the answer (``answer_part`` cuts them off)."""
    text_baseline: str = "none"
    """The strategy of the text-only baseline: ``single_label``, ``multi_label``, ``nearest_reference`` or ``none``."""
    confusion: bool = False
    """Whether reports show a confusion matrix over the labels."""
    text_only: bool = False
    """Requests are text alone: the evaluation loop never skips an item for want of an image, and models
    that read images ask without one."""
    open_ended: bool = False
    """Answers are free text with no single right wording: reports show examples side by side and the arena
    pairs these tasks' answers by default."""
    task_type: str = ""
    """The suite's own name for the task's type (SocKET's ``CLS``, ``PAIR``, ``REG``, ``SPAN``), empty for none."""

    def request(self, spec: TaskSpec, example: Example, instruction: str, seed: int | None = None) -> Request:
        """The item's images, then its text and the instruction."""
        return image_request(example, instruction, seed)

    def parse(self, spec: TaskSpec, raw: str, strict: bool) -> Parsed:
        raise NotImplementedError(f"task kind {self.name!r} does not parse answers")

    def target(self, spec: TaskSpec, label: object) -> str:
        raise NotImplementedError(f"task kind {self.name!r} writes no training targets")

    def random_answer(self, spec: TaskSpec, rng: np.random.Generator) -> str:
        """A random answer (``--model random``); the default answers nothing."""
        return ""

    def check_reference(self, spec: TaskSpec, value: object) -> object:
        """The reference to score, or ValueError for one that cannot be scored."""
        return value

    def check_prediction(self, spec: TaskSpec, value: object) -> object:
        """The prediction to score, or ValueError for one that cannot be scored (a number where text is
        expected, NaN, an infinity), so the row is skipped."""
        return value

    def metric_input(self, spec: TaskSpec, predictions: Sequence[object], references: Sequence[object]) -> MetricInput:
        """What the kind's metric groups score (a record of ``mmsoc.metrics.inputs`` or ``suite_inputs``)."""
        raise NotImplementedError(f"task kind {self.name!r} gives no metric input")

    def notes(self, spec: TaskSpec, predictions: Sequence[object], references: Sequence[object]) -> dict[str, object]:
        """Notes on how the predictions were scored, after the metric groups' own."""
        return {}

    def score(
        self,
        spec: TaskSpec,
        predictions: Sequence[object],
        references: Sequence[object],
        *,
        text_encoder: str | None = None,
        fast: bool = False,
    ) -> TaskScores:
        """The kind's metric groups on its metric input, then its notes."""
        from mmsoc.metrics.registry import run_groups

        check_lengths(spec.id, predictions, references)
        stats, info = run_groups(self.name, self.metric_input(spec, predictions, references), fast)
        info.update(self.notes(spec, predictions, references))
        return TaskScores(spec.id, {**{k: s.value() for k, s in stats.items()}, "n": len(references)}, stats, info)


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


def check_lengths(task: str, predictions: Sequence[object], references: Sequence[object]) -> None:
    if len(predictions) != len(references):
        raise ValueError(f"{task}: {len(predictions)} predictions but {len(references)} references")
    if not references:
        raise ValueError(f"{task}: nothing to score")


def text_value(value: object) -> str:
    """``value`` where text is expected: a string, else ValueError naming what it is (a number, a dict...)."""
    if not isinstance(value, str):
        raise ValueError(f"expected text, got {type(value).__name__} {value!r:.60}")
    return value


def text_prediction(value: object) -> str | None:
    """A prediction of a text kind: a string, or None for an answer that is missing; ValueError otherwise."""
    return None if value is None else text_value(value)


def finite_number(value: object) -> float:
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
