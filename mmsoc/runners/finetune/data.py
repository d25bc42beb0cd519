"""Instruction examples for fine-tuning: the evaluation request of an item and its target answer."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mmsoc.core.records import Example
from mmsoc.models.base import Request
from mmsoc.runners.finetune.explanations import Explanation, find_explanation
from mmsoc.tasks import get_task, kind_of
from mmsoc.tasks.kinds.base import with_explanation

if TYPE_CHECKING:
    from mmsoc.models.budget import Counts


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
    text_tokens_dropped: int = 0
    """Text tokens cut to fit the model's context, over all items."""
    max_prompt_tokens: int = 0
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
    inputs: Counts | None = None,
) -> TrainingSet:
    """Pair each labelled example with its canonical answer (and teacher explanation, when a table
    is given). Items without a label or an image, or with a label outside the task's answer set, are
    skipped and recorded. With ``inputs`` (a model's input side, ``mmsoc.models.inputs``), each request
    is fitted to the model's context with its target (``mmsoc.runners.fitting``: the text cut as needed)."""
    from mmsoc.runners.fitting import fit_request

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
        target = with_explanation(target, found.explanation if found else None)
        request = request_for(example, prompts[example.task])
        if inputs is not None:
            fit = fit_request(
                inputs, example, prompts[example.task], request, inputs.text_tokens(f" {target}") + 1, "drop"
            )
            if isinstance(fit, str):
                result.problems.append({"task": example.task, "id": example.id, "reason": fit})
                continue
            request = fit.request
            result.text_tokens_dropped += fit.text_tokens_dropped
            result.max_prompt_tokens = max(result.max_prompt_tokens, fit.prompt_tokens)
        result.items.append(TrainItem(request, target, explained=found is not None))
    return result
