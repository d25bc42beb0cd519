"""SuperTweetEval question answering (TweetQA): a short answer, scored by SQuAD v1.1 answer F1 (and exact
match beside it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from mmsoc.tasks.kinds._ste import SteKind
from mmsoc.tasks.kinds.base import INVALID, Parsed, text_prediction, text_value
from mmsoc.tasks.spec import TaskSpec

if TYPE_CHECKING:
    from mmsoc.metrics.inputs import TextInput
    from mmsoc.tasks.supertweeteval.sample import SampleDraw


class FreeText(SteKind[str]):
    name = "ste_qa"
    answers = True
    """Whether the reference answers the item's question (QA), rather than being the question (QG)."""

    def parse(self, spec: TaskSpec, raw: str, strict: bool) -> Parsed:
        from mmsoc.tasks.supertweeteval.answers import lenient_text

        text = raw if strict else lenient_text(raw)
        return Parsed(text, True) if text.strip() else (Parsed(text, False) if strict else INVALID)

    def target(self, spec: TaskSpec, label: object) -> str:
        return str(label)

    def check_reference(self, spec: TaskSpec, value: object) -> str:
        return text_value(value)

    def check_prediction(self, spec: TaskSpec, value: object) -> str | None:
        return text_prediction(value)

    def checked_input(self, spec: TaskSpec, predictions: Sequence[object], references: list[str]) -> TextInput:
        from mmsoc.metrics.inputs import TextInput

        return TextInput(["" if p is None else str(p) for p in predictions], list(references))

    def sample_row(self, draw: SampleDraw) -> dict[str, object]:
        from mmsoc.tasks.supertweeteval.sample import question_row

        return question_row(draw, self.answers)


KIND = FreeText()
