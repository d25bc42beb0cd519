"""Free-text generation (image description, social context): the stripped response is the answer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mmsoc.core.records import Example
from mmsoc.models.base import Request
from mmsoc.tasks.kinds._text import score_text
from mmsoc.tasks.kinds.base import (
    INVALID,
    Parsed,
    TaskScores,
    check_lengths,
    image_request,
    text_prediction,
    text_value,
)
from mmsoc.tasks.spec import TaskSpec


class Generation:
    name = "generation"
    explainable = False
    text_baseline = "nearest_reference"
    confusion = False

    def request(self, spec: TaskSpec, example: Example, instruction: str, seed: int | None = None) -> Request:
        return image_request(example, instruction, seed)

    def parse(self, spec: TaskSpec, raw: str, strict: bool) -> Parsed:
        text = raw.strip()
        return Parsed(text, True) if text else INVALID

    def target(self, spec: TaskSpec, label: Any) -> str:
        text = str(label).strip()
        if not text:
            raise ValueError(f"task {spec.id!r}: empty reference text")
        return text

    def random_answer(self, spec: TaskSpec, rng: np.random.Generator) -> str:
        return ""

    def check_reference(self, spec: TaskSpec, value: Any) -> Any:
        return text_value(value)

    def check_prediction(self, spec: TaskSpec, value: Any) -> Any:
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
        """None (an unparseable response) scores as the empty string."""
        from mmsoc.metrics.normalize import as_text

        check_lengths(spec.id, predictions, references)
        return score_text(
            self.name, spec.id, [as_text(p) for p in predictions], [as_text(r) for r in references], text_encoder, fast
        )


KIND = Generation()
