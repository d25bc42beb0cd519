"""Target answers in the exact format the strict parser accepts, optionally followed by an explanation."""

from __future__ import annotations

from typing import Any

from mmsoc.tasks.table import TaskSpec, get_task

EXPLANATION_MARKER = " Explanation: "
"""Separates the answer from the teacher's explanation; the answer always comes first."""


def _asks_yes_no(task: TaskSpec) -> bool:
    return "'Yes' or 'No'" in task.prompt


def answer_text(task_id: str, label: Any) -> str:
    """The canonical answer for a gold label: Yes/No for yes-no questions, the label word for other
    classification, the text in double quotes for OCR, comma-separated topics for tagging, the
    reference itself for description tasks."""
    task = get_task(task_id)
    if task.kind == "classification":
        if label not in task.labels:
            raise ValueError(f"task {task_id!r}: label {label!r} is not one of {', '.join(task.labels)}")
        if _asks_yes_no(task):
            return "Yes" if label == task.labels[0] else "No"
        return str(label)
    if task.kind == "multilabel":
        tags = [label] if isinstance(label, str) else list(label)
        unknown = [tag for tag in tags if tag not in task.labels]
        if not tags or unknown:
            raise ValueError(f"task {task_id!r}: unknown or missing topics {unknown or tags!r}")
        return ",".join(tags)
    text = str(label).strip()
    if not text:
        raise ValueError(f"task {task_id!r}: empty reference text")
    return f"\"{text}\"" if task.kind == "ocr" else text


def with_explanation(answer: str, explanation: str | None) -> str:
    """``answer`` followed by `` Explanation: ...`` when an explanation is given."""
    explanation = " ".join((explanation or "").split())
    return answer + EXPLANATION_MARKER + explanation if explanation else answer


def answer_part(response: str) -> str:
    """The answer part of a response that may carry an explanation after the marker."""
    return response.split(EXPLANATION_MARKER.strip(), 1)[0].strip()

