"""What the SuperTweetEval kinds share: the request (the paper's zero-shot prompt with the item's fields
filled in, text only), the scoring call and the reading of the hub's rows; each kind module brings its
readers, metric input, gold reader and sample rows.

Parsing, reported side by side as for every kind: ``strict`` is the official script's reading of a
prediction line, its value kept even when the answer is not well formed (so ``mmsoc score`` of a prediction
file scores what the script scores), valid only when it is; ``lenient`` is what ``mmsoc eval`` scores."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np

from mmsoc.core.records import Example
from mmsoc.models.base import Request, Text
from mmsoc.tasks.kinds.base import TaskKind, text_value
from mmsoc.tasks.spec import TaskSpec

if TYPE_CHECKING:
    from mmsoc.metrics.registry import MetricInput
    from mmsoc.tasks.supertweeteval.sample import SampleDraw


Reference = TypeVar("Reference")
"""The type of a kind's checked references (what ``check_reference`` returns)."""


class SteKind(TaskKind, Generic[Reference]):
    """A SuperTweetEval kind: besides the contract, how a row of the hub's files gives the reference
    (``gold_field``, ``read_gold``) and what the embedded sample's rows look like (``sample_row``)."""

    text_only = True
    unread_rule = ""
    """How an unread prediction is scored, noted when there is one (empty: as the metric input says)."""
    gold_field = "gold_label_str"
    """The field of a row that holds the reference."""
    named_labels = False
    """Whether the class names come from the task folder's ``map.txt`` (lines ``id,name``) when it has one."""

    def request(self, spec: TaskSpec, example: Example, instruction: str, seed: int | None = None) -> Request:
        from mmsoc.tasks.templates import fill

        fields = {key: str(value) for key, value in example.meta.items() if isinstance(value, str)}
        return Request(example.task, example.id, (Text(fill(instruction, fields)),), seed, example.text)

    def random_answer(self, spec: TaskSpec, rng: np.random.Generator) -> str:
        return str(rng.choice(spec.labels)) if spec.labels else ""

    def check_reference(self, spec: TaskSpec, value: object) -> Reference:
        """The reference to score, or ValueError for one that cannot be scored."""
        raise NotImplementedError

    def metric_input(self, spec: TaskSpec, predictions: Sequence[object], references: Sequence[object]) -> MetricInput:
        return self.checked_input(spec, predictions, [self.check_reference(spec, ref) for ref in references])

    def checked_input(self, spec: TaskSpec, predictions: Sequence[object], references: list[Reference]) -> MetricInput:
        """What the metric groups score, from the checked references; a None prediction (nothing read) is
        the script's reading of an unusable line."""
        raise NotImplementedError

    def notes(self, spec: TaskSpec, predictions: Sequence[object], references: Sequence[object]) -> dict[str, object]:
        unread = sum(p is None for p in predictions)
        notes: dict[str, object] = {"unread_predictions": unread}
        if unread and self.unread_rule:
            notes["unread_rule"] = f"{unread} of {len(predictions)} predictions unread: {self.unread_rule}"
        return notes

    def read_gold(self, row: dict[str, Any], names: tuple[str, ...]) -> object:
        """The reference of one row, ``names`` being the class names (raises KeyError, IndexError, TypeError
        or ValueError on a malformed row)."""
        return text_value(row[self.gold_field])

    def sample_row(self, draw: SampleDraw) -> dict[str, object]:
        """One row of the embedded sample, in the hub's field names."""
        raise NotImplementedError

    def write_sample_files(self, folder: Path) -> None:
        """Files of the embedded sample besides the rows (none by default)."""


def ste_kind(spec: TaskSpec) -> SteKind:
    """The kind of a SuperTweetEval task (ValueError for a task of another suite)."""
    from mmsoc.tasks.registry import kind_of

    kind = kind_of(spec)
    if not isinstance(kind, SteKind):
        raise ValueError(f"{spec.id} is not a SuperTweetEval task")
    return kind


def class_id(value: object) -> int:
    """A class id as the hub writes it (a number or its text), ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, str)) or int(value) < 0:
        raise ValueError(f"expected a class id, got {value!r}")
    return int(value)


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


def class_indices(spec: TaskSpec, values: Sequence[object]) -> np.ndarray:
    """Index of each label; ``len(spec.labels)`` for a prediction that names none (None: unread)."""
    return np.array(
        [spec.labels.index(v) if isinstance(v, str) and v in spec.labels else len(spec.labels) for v in values],
        dtype=np.int64,
    )
