"""SocKET regression (``REG``): a score read from the generated answer as the official script reads it
(exactly one ``[0-9](?:\\.[0-9])?`` in the answer), scored by Pearson r and (r + 1) / 2.

The parsed label is the answer text; it is valid when it holds exactly one number."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from mmsoc.metrics.suite_inputs import NumberInput
from mmsoc.tasks.kinds._socket import SocketKind
from mmsoc.tasks.kinds.base import INVALID, Parsed, text_prediction
from mmsoc.tasks.spec import TaskSpec

RANGE = re.compile(r"from ([0-9.]+) to ([0-9.]+)")


class SocketRegression(SocketKind):
    name = "socket_reg"
    task_type = "REG"

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

    def check_reference(self, spec: TaskSpec, value: object) -> float:
        from mmsoc.tasks.socket.data import regression_label

        return regression_label(value)

    def check_prediction(self, spec: TaskSpec, value: object) -> str | None:
        """The answer text the score is read from (None: missing); a number or other value is refused."""
        return text_prediction(value)

    def metric_input(self, spec: TaskSpec, predictions: Sequence[object], references: Sequence[object]) -> NumberInput:
        from mmsoc.tasks.socket.answers import answer_text, official_number

        found = [official_number(answer_text(p)) if isinstance(p, str) else None for p in predictions]
        return NumberInput(
            np.array([self.check_reference(spec, r) for r in references], dtype=np.float64),
            np.array([np.nan if v is None else v for v in found], dtype=np.float64),
        )


KIND = SocketRegression()
