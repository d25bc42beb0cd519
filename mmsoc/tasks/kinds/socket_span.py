"""SocKET span detection (``SPAN``): the parts of the input the answer quotes, scored by character-offset Dice.

The parsed label is the answer text; scoring takes its quoted parts after an echoed question (else the
whole answer) and snaps them to the item's text. References are ``{"text": ..., "spans": [...]}``: the
item's text and its gold spans (substrings of the text)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from mmsoc.metrics.suite_inputs import SpanInput
from mmsoc.tasks.kinds._socket import SocketKind
from mmsoc.tasks.kinds.base import INVALID, Parsed
from mmsoc.tasks.spec import TaskSpec


class SpanReference(TypedDict):
    """A span task's reference: the item's text and its gold spans."""

    text: str
    spans: list[str]


class SocketSpan(SocketKind):
    name = "socket_span"
    task_type = "SPAN"

    def parse(self, spec: TaskSpec, raw: str, strict: bool) -> Parsed:
        from mmsoc.metrics.spans import MIN_SPAN
        from mmsoc.tasks.socket.answers import answer_text, span_candidates

        answer = answer_text(raw)
        usable = any(len(span.strip()) >= MIN_SPAN for span in span_candidates(spec, answer))
        return Parsed(answer, True) if usable else INVALID

    def target(self, spec: TaskSpec, label: object) -> str:
        return ", ".join(f'"{span}"' for span in self.check_reference(spec, label)["spans"])

    def check_reference(self, spec: TaskSpec, value: object) -> SpanReference:
        from mmsoc.tasks.socket.data import span_label

        if not isinstance(value, dict) or not isinstance(value.get("text"), str) or "spans" not in value:
            raise ValueError('a span reference is {"text": ..., "spans": [...]}')
        spans = value["spans"] if isinstance(value["spans"], list) else span_label(value["spans"])
        if not all(isinstance(span, str) for span in spans):
            raise ValueError("spans must be strings")
        return {"text": value["text"], "spans": spans}

    def metric_input(self, spec: TaskSpec, predictions: Sequence[object], references: Sequence[object]) -> SpanInput:
        from mmsoc.tasks.socket.answers import answer_text, span_candidates

        gold = [self.check_reference(spec, ref) for ref in references]
        candidates = [span_candidates(spec, answer_text(p)) if isinstance(p, str) else None for p in predictions]
        return SpanInput([g["text"] for g in gold], [g["spans"] for g in gold], candidates)


KIND = SocketSpan()
