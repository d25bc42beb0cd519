"""Teacher explanations: ask any backend *why* each training item has its gold label."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from tqdm.auto import tqdm

from mmsoc.core.io import JsonlAppender
from mmsoc.core.records import Example
from mmsoc.models.base import GenerationSettings, Model, Request
from mmsoc.runners.finetune.data import request_for
from mmsoc.runners.finetune.explanations import Explanation, read_explanations
from mmsoc.tasks import get_task

WHY_PROMPT_VERSION = "mmsoc-why-v1"
"""Version of the label-conditioned "why" questions of the task table (``TaskSpec.why``)."""


def why_prompt(task_id: str, label: str | Sequence[str]) -> str:
    """The question a teacher answers to explain one gold label (a topic list for tagging)."""
    spec = get_task(task_id)
    table = dict(spec.why)
    if "{tags}" in table:
        tags = [label] if isinstance(label, str) else list(label)
        return table["{tags}"].format(tags=",".join(tags))
    if not table:
        raise ValueError(f"task {task_id!r} has no label to explain")
    try:
        return table[str(label)]
    except KeyError:
        raise ValueError(f"task {task_id!r} has no label {label!r}; labels: {', '.join(table)}") from None


@dataclass
class ExplainSummary:
    """Counts of a run of ``write_explanations`` and the items it skipped (task, id, reason)."""

    written: int = 0
    already_done: int = 0
    problems: list[dict[str, str]] = field(default_factory=list)


def explain_requests(examples: Sequence[Example], seed: int | None) -> tuple[list[Request], list[dict[str, str]]]:
    """One label-conditioned "why" request per labelled example; the others are returned as problems."""
    requests, problems = [], []
    for example in examples:
        try:
            if example.label is None:
                raise ValueError("no gold label to explain")
            requests.append(request_for(example, why_prompt(example.task, example.label), seed))
        except ValueError as err:
            problems.append({"task": example.task, "id": example.id, "reason": str(err)})
    return requests, problems


def write_explanations(backend: Model, examples: Sequence[Example], out_path: str | os.PathLike,
                       settings: GenerationSettings, seed: int = 0, batch_size: int = 8,
                       progress: bool = False) -> ExplainSummary:
    """Append one explanation row per example to ``out_path`` (JSON Lines, flushed per row).

    Rows already in the file are kept and their items skipped, so a killed run resumes; empty
    responses are recorded as problems and not written (a rerun asks again).
    """
    labels = {(e.task, e.id): e.label for e in examples}
    requests, problems = explain_requests(examples, None if settings.greedy else seed)
    summary = ExplainSummary(problems=problems)
    with JsonlAppender(out_path) as log:
        done = read_explanations(out_path)
        todo = [r for r in requests if (r.task, r.id) not in done]
        summary.already_done = len(requests) - len(todo)
        bar = tqdm(total=len(todo), desc="explaining", disable=not progress)
        for start in range(0, len(todo), batch_size):
            batch = todo[start:start + batch_size]
            for request, raw in zip(batch, backend.generate(batch, settings)):
                if not raw.strip():
                    summary.problems.append({"task": request.task, "id": request.id, "reason": "empty explanation"})
                    continue
                label = labels[(request.task, request.id)]
                log.append(Explanation(request.id, raw.strip(), request.task,
                                       label if isinstance(label, str) else ",".join(label),
                                       request.prompt, WHY_PROMPT_VERSION).row())
                summary.written += 1
            bar.update(len(batch))
        bar.close()
    return summary
