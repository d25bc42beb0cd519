"""SuperTweetEval yes/no tasks (TweetNERD, TempoWiC), scored by accuracy (an unread answer is wrong)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mmsoc.tasks.kinds._ste import SteKind, class_indices, class_name
from mmsoc.tasks.kinds.base import INVALID, Parsed
from mmsoc.tasks.spec import TaskSpec


class YesNo(SteKind):
    name = "ste_yes_no"
    text_baseline = "single_label"

    def parse(self, spec: TaskSpec, raw: str, strict: bool) -> Parsed:
        from mmsoc.tasks.supertweeteval.answers import lenient_label, official_label

        label = (official_label if strict else lenient_label)(raw, spec.labels)
        return INVALID if label is None else Parsed(label, True)

    def target(self, spec: TaskSpec, label: Any) -> str:
        return class_name(spec, label)

    def check_reference(self, spec: TaskSpec, value: Any) -> Any:
        return class_name(spec, value)

    def metric_input(self, spec: TaskSpec, predictions: Sequence[Any], references: Sequence[Any]) -> Any:
        from mmsoc.metrics.inputs import LabelInput

        return LabelInput(class_indices(spec, references), class_indices(spec, predictions), spec.labels)


KIND = YesNo()
