"""SuperTweetEval yes/no tasks (TweetNERD, TempoWiC), scored by accuracy (an unread answer is wrong)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mmsoc.tasks.kinds._ste import SteKind, class_id, class_indices, class_name
from mmsoc.tasks.kinds.base import INVALID, Parsed
from mmsoc.tasks.spec import TaskSpec

if TYPE_CHECKING:
    from mmsoc.metrics.inputs import LabelInput
    from mmsoc.tasks.supertweeteval.sample import SampleDraw


class YesNo(SteKind[str]):
    name = "ste_yes_no"
    text_baseline = "single_label"
    gold_field = "gold_label_binary"

    def parse(self, spec: TaskSpec, raw: str, strict: bool) -> Parsed:
        from mmsoc.tasks.supertweeteval.answers import lenient_label, official_label

        label = (official_label if strict else lenient_label)(raw, spec.labels)
        return INVALID if label is None else Parsed(label, True)

    def target(self, spec: TaskSpec, label: object) -> str:
        return class_name(spec, label)

    def check_reference(self, spec: TaskSpec, value: object) -> str:
        return class_name(spec, value)

    def checked_input(self, spec: TaskSpec, predictions: Sequence[object], references: list[str]) -> LabelInput:
        from mmsoc.metrics.inputs import LabelInput

        return LabelInput(class_indices(spec, references), class_indices(spec, predictions), spec.labels)

    def read_gold(self, row: dict[str, Any], names: tuple[str, ...]) -> str:
        from mmsoc.tasks.supertweeteval.tasks import YES_NO

        return YES_NO[class_id(row[self.gold_field])]

    def sample_row(self, draw: SampleDraw) -> dict[str, object]:
        from mmsoc.tasks.supertweeteval.sample import yes_no_row

        return yes_no_row(draw)


class NamedClasses(YesNo):
    """Classes read as the yes/no tasks' are, given as ids of names (``gold_label``)."""

    gold_field = "gold_label"
    named_labels = True

    def read_gold(self, row: dict[str, Any], names: tuple[str, ...]) -> str:
        return names[class_id(row[self.gold_field])]

    def sample_row(self, draw: SampleDraw) -> dict[str, object]:
        from mmsoc.tasks.supertweeteval.sample import class_row

        return class_row(draw, len(draw.labels))


KIND = YesNo()
