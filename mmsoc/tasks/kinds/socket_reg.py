"""SocKET regression (``REG``): a score read from the generated answer as the official script reads it
(exactly one ``[0-9](?:\\.[0-9])?`` in the answer), scored by Pearson r and (r + 1) / 2.

The parsed label is the answer text; it is valid when it holds exactly one number."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from mmsoc.core.records import Example
from mmsoc.models.base import Request
from mmsoc.tasks.kinds.base import INVALID, Parsed, TaskScores, check_lengths, text_prediction
from mmsoc.tasks.spec import TaskSpec

RANGE = re.compile(r"from ([0-9.]+) to ([0-9.]+)")


class SocketRegression:
    name = "socket_reg"
    task_type = "REG"
    explainable = False
    text_baseline = "none"
    confusion = False
    text_only = True
    """Requests are text alone: models that read images ask without one."""

    def request(self, spec: TaskSpec, example: Example, instruction: str, seed: int | None = None) -> Request:
        from mmsoc.tasks.socket.prompting import socket_request

        return socket_request(spec, example, instruction, seed)

    def parse(self, spec: TaskSpec, raw: str, strict: bool) -> Parsed:
        from mmsoc.tasks.socket.answers import answer_text, official_number

        answer = answer_text(raw)
        return Parsed(answer, True) if official_number(answer) is not None else INVALID

    def target(self, spec: TaskSpec, label: Any) -> str:
        return f"{float(label):.1f}"

    def random_answer(self, spec: TaskSpec, rng: np.random.Generator) -> str:
        """A score drawn uniformly from the range the question states, with one decimal."""
        found = RANGE.search(spec.prompt)
        low, high = (float(found.group(1)), float(found.group(2))) if found else (0.0, 5.0)
        return f"{rng.uniform(low, high):.1f}"

    def check_reference(self, spec: TaskSpec, value: Any) -> Any:
        from mmsoc.tasks.socket.data import regression_label

        return regression_label(value)

    def check_prediction(self, spec: TaskSpec, value: Any) -> Any:
        """The answer text the score is read from (None: missing); a number or other value is refused."""
        return text_prediction(value)

    def score(
        self,
        spec: TaskSpec,
        predictions: Sequence[Any],
        references: Sequence[Any],
        *,
        text_encoder: str | None = None,
        fast: bool = False,
    ) -> TaskScores:
        from mmsoc.metrics.registry import run_groups
        from mmsoc.metrics.suite_inputs import NumberInput
        from mmsoc.tasks.socket.answers import answer_text, official_number

        check_lengths(spec.id, predictions, references)
        found = [official_number(answer_text(p)) if isinstance(p, str) else None for p in predictions]
        data = NumberInput(
            np.array([self.check_reference(spec, r) for r in references], dtype=np.float64),
            np.array([np.nan if v is None else v for v in found], dtype=np.float64),
        )
        stats, info = run_groups(self.name, data, fast)
        return TaskScores(spec.id, {**{k: s.value() for k, s in stats.items()}, "n": len(references)}, stats, info)


KIND = SocketRegression()
