"""SuperTweetEval question answering (TweetQA): a short answer, scored by SQuAD v1.1 answer F1 (and exact
match beside it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mmsoc.tasks.kinds._ste import SteKind
from mmsoc.tasks.kinds.base import INVALID, Parsed, text_prediction, text_value
from mmsoc.tasks.spec import TaskSpec


class FreeText(SteKind):
    name = "ste_qa"

    def parse(self, spec: TaskSpec, raw: str, strict: bool) -> Parsed:
        from mmsoc.tasks.supertweeteval.answers import lenient_text

        text = raw if strict else lenient_text(raw)
        return Parsed(text, True) if text.strip() else (Parsed(text, False) if strict else INVALID)

    def target(self, spec: TaskSpec, label: Any) -> str:
        return str(label)

    def check_reference(self, spec: TaskSpec, value: Any) -> Any:
        return text_value(value)

    def check_prediction(self, spec: TaskSpec, value: Any) -> Any:
        return text_prediction(value)

    def metric_input(self, spec: TaskSpec, predictions: Sequence[Any], references: Sequence[Any]) -> Any:
        from mmsoc.metrics.inputs import TextInput

        return TextInput(["" if p is None else str(p) for p in predictions], list(references))


KIND = FreeText()
