"""Instruction examples for fine-tuning: the evaluation request of an item and its target answer."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from mmsoc.core.records import Example
from mmsoc.models.base import Request
from mmsoc.runners.finetune.explanations import Explanation, find_explanation
from mmsoc.tasks import get_task, kind_of
from mmsoc.tasks.kinds.base import with_explanation


@dataclass(frozen=True)
class TrainItem:
    """One training pair: the request exactly as evaluation sends it, and the text to learn."""

    request: Request
    target: str
    explained: bool = False


@dataclass
class TrainingSet:
    """Training pairs plus the items that could not become one (id, task, reason)."""

    items: list[TrainItem] = field(default_factory=list)
    problems: list[dict[str, str]] = field(default_factory=list)


def request_for(example: Example, instruction: str, seed: int | None = None) -> Request:
    """The request evaluation sends for ``example`` (built by the task's kind, as ``runners.eval.plan`` does)."""
    spec = get_task(example.task)
    return kind_of(spec).request(spec, example, instruction, seed)


def answer_text(task_id: str, label: object) -> str:
    """The canonical answer for a gold label, in the exact format the strict parser accepts."""
    spec = get_task(task_id)
    return kind_of(spec).target(spec, label)


def build_training_set(
    examples: Iterable[Example],
    prompts: Mapping[str, str],
    explanations: Mapping[tuple[str, str], Explanation] | None = None,
) -> TrainingSet:
    """Pair each labelled example with its canonical answer (and teacher explanation, when a table
    is given). Items without a label or an image, or with a label outside the task's answer set, are
    skipped and recorded."""
    result = TrainingSet()
    for example in examples:
        try:
            if example.label is None:
                raise ValueError("no gold label")
            if not example.images:
                raise ValueError("no image")
            target = answer_text(example.task, example.label)
        except ValueError as err:
            result.problems.append({"task": example.task, "id": example.id, "reason": str(err)})
            continue
        found = find_explanation(explanations, example.task, example.id) if explanations is not None else None
        result.items.append(
            TrainItem(
                request_for(example, prompts[example.task]),
                with_explanation(target, found.explanation if found else None),
                explained=found is not None,
            )
        )
    return result
