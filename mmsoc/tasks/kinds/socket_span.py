"""SocKET span detection (``SPAN``): the parts of the input the answer quotes, scored by character-offset Dice.

The parsed label is the answer text; scoring takes its quoted parts after an echoed question (else the
whole answer) and snaps them to the item's text. References are ``{"text": ..., "spans": [...]}``: the
item's text and its gold spans (substrings of the text)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mmsoc.core.records import Example
from mmsoc.models.base import Request
from mmsoc.tasks.kinds.base import INVALID, Parsed, TaskScores, check_lengths
from mmsoc.tasks.spec import TaskSpec


class SocketSpan:
    name = "socket_span"
    task_type = "SPAN"
    explainable = False
    text_baseline = "none"
    confusion = False
    text_only = True
    """Requests are text alone: models that read images ask without one."""

    def request(self, spec: TaskSpec, example: Example, instruction: str, seed: int | None = None) -> Request:
        from mmsoc.tasks.socket.prompting import socket_request

        return socket_request(spec, example, instruction, seed)

    def parse(self, spec: TaskSpec, raw: str, strict: bool) -> Parsed:
        from mmsoc.metrics.spans import MIN_SPAN
        from mmsoc.tasks.socket.answers import answer_text, span_candidates

        answer = answer_text(raw)
        usable = any(len(span.strip()) >= MIN_SPAN for span in span_candidates(spec, answer))
        return Parsed(answer, True) if usable else INVALID

    def target(self, spec: TaskSpec, label: Any) -> str:
        return ", ".join(f'"{span}"' for span in self.check_reference(spec, label)["spans"])

    def random_answer(self, spec: TaskSpec, rng: np.random.Generator) -> str:
        return ""

    def check_reference(self, spec: TaskSpec, value: Any) -> Any:
        from mmsoc.tasks.socket.data import span_label

        if not isinstance(value, dict) or not isinstance(value.get("text"), str) or "spans" not in value:
            raise ValueError('a span reference is {"text": ..., "spans": [...]}')
        spans = value["spans"] if isinstance(value["spans"], list) else span_label(value["spans"])
        if not all(isinstance(span, str) for span in spans):
            raise ValueError("spans must be strings")
        return {"text": value["text"], "spans": spans}

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
        from mmsoc.metrics.suite_inputs import SpanInput
        from mmsoc.tasks.socket.answers import answer_text, span_candidates

        check_lengths(spec.id, predictions, references)
        gold = [self.check_reference(spec, ref) for ref in references]
        candidates = [span_candidates(spec, answer_text(p)) if isinstance(p, str) else None for p in predictions]
        data = SpanInput([g["text"] for g in gold], [g["spans"] for g in gold], candidates)
        stats, info = run_groups(self.name, data, fast)
        return TaskScores(spec.id, {**{k: s.value() for k, s in stats.items()}, "n": len(references)}, stats, info)


KIND = SocketSpan()
