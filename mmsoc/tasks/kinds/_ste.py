"""What the SuperTweetEval kinds share: the request (the paper's zero-shot prompt with the item's fields
filled in, text only) and the scoring call; each kind module brings its readers and metric input.

Parsing, reported side by side as for every kind: ``strict`` is the official script's reading of a
prediction line, its value kept even when the answer is not well formed (so ``mmsoc score`` of a prediction
file scores what the script scores), valid only when it is; ``lenient`` is what ``mmsoc eval`` scores."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mmsoc.core.records import Example
from mmsoc.models.base import Request, Text
from mmsoc.tasks.kinds.base import TaskScores, check_lengths
from mmsoc.tasks.spec import TaskSpec


class SteKind:
    name = ""
    explainable = False
    text_baseline = "none"
    confusion = False
    text_only = True
    """Requests are text alone: models that read images ask without one."""
    unread_rule = ""
    """How an unread prediction is scored, noted when there is one (empty: as the metric input says)."""

    def request(self, spec: TaskSpec, example: Example, instruction: str, seed: int | None = None) -> Request:
        from mmsoc.tasks.templates import fill

        fields = {key: str(value) for key, value in example.meta.items() if isinstance(value, str)}
        return Request(example.task, example.id, (Text(fill(instruction, fields)),), seed, example.text)

    def random_answer(self, spec: TaskSpec, rng: np.random.Generator) -> str:
        return str(rng.choice(spec.labels)) if spec.labels else ""

    def metric_input(self, spec: TaskSpec, predictions: Sequence[Any], references: Sequence[Any]) -> Any:
        raise NotImplementedError

    def score(
        self,
        spec: TaskSpec,
        predictions: Sequence[Any],
        references: Sequence[Any],
        *,
        text_encoder: str | None = None,
        fast: bool = False,
    ) -> TaskScores:
        """The kind's metric groups on its input; a None prediction (nothing read) scores as the script's
        reading of an unusable line."""
        from mmsoc.metrics.registry import run_groups

        check_lengths(spec.id, predictions, references)
        references = [self.check_reference(spec, ref) for ref in references]
        stats, info = run_groups(self.name, self.metric_input(spec, predictions, references), fast)
        info["unread_predictions"] = unread = sum(p is None for p in predictions)
        if unread and self.unread_rule:
            info["unread_rule"] = f"{unread} of {len(predictions)} predictions unread: {self.unread_rule}"
        return TaskScores(spec.id, {**{k: s.value() for k, s in stats.items()}, "n": len(references)}, stats, info)

    def check_reference(self, spec: TaskSpec, value: Any) -> Any:
        return value


def class_name(spec: TaskSpec, value: Any) -> str:
    """A class name, or its id, as the name (ValueError otherwise)."""
    if isinstance(value, str) and value in spec.labels:
        return value
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = -1
    if 0 <= number < len(spec.labels) and not isinstance(value, bool):
        return spec.labels[number]
    raise ValueError(f"{value!r} is not one of {', '.join(spec.labels)} (or its id)")


def class_indices(spec: TaskSpec, values: Sequence[Any]) -> np.ndarray:
    """Index of each label; ``len(spec.labels)`` for a prediction that names none (None: unread)."""
    return np.array(
        [spec.labels.index(v) if isinstance(v, str) and v in spec.labels else len(spec.labels) for v in values],
        dtype=np.int64,
    )
