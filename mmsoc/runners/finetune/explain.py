"""Teacher explanations: ask any backend *why* each training item has its gold label."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from mmsoc.core.jsonl_log import JsonlAppender
from mmsoc.core.progress import track
from mmsoc.core.records import Example
from mmsoc.core.runfolder import RunFolder
from mmsoc.models.base import GenerationSettings, Model, Request
from mmsoc.runners.finetune.data import request_for
from mmsoc.runners.finetune.explanations import Explanation
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
    """Counts of a run of ``write_explanations`` and the items it skipped (task, id, problem)."""

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
            problems.append({"task": example.task, "id": example.id, "problem": str(err)})
    return requests, problems


def write_explanations(
    backend: Model,
    examples: Sequence[Example],
    out_dir: str | os.PathLike,
    settings: GenerationSettings,
    seed: int = 0,
    batch_size: int = 8,
    progress: bool = False,
    meta: dict[str, Any] | None = None,
    problems: Sequence[dict[str, str]] = (),
) -> ExplainSummary:
    """Explain every example into the run folder ``out_dir`` (``RunFolder``, rows keyed by task and id).

    ``config.json`` holds the run's identity (``meta``, e.g. the teacher model and data, plus the
    generation settings and prompt version): a different one on the same folder is refused.
    ``predictions.jsonl`` gets one explanation row per item as soon as its batch is done, so a killed
    run resumes; empty responses and unlabelled items go to ``problems.jsonl`` (with ``problems``
    given by the caller) and a rerun asks again.
    """
    folder = RunFolder(out_dir, key_fields=("task", "id"))
    generation = {"greedy": True, "max_new_tokens": settings.max_new_tokens} if settings.greedy else asdict(settings)
    config = {
        "why_prompt_version": WHY_PROMPT_VERSION,
        "generation": generation,
        "seed": None if settings.greedy else seed,
        **(meta or {}),
    }
    config = json.loads(json.dumps(config))
    labels = {(e.task, e.id): e.label for e in examples}
    requests, skipped = explain_requests(examples, None if settings.greedy else seed)
    summary = ExplainSummary(problems=[*problems, *skipped])
    with folder.lock():
        folder.check(config)
        folder.repair()
        done = folder.done()
        todo = [r for r in requests if (r.task, r.id) not in done]
        summary.already_done = len(requests) - len(todo)
        folder.claim(config)
        with JsonlAppender(folder.own_log(0, 1)) as log:
            starts = range(0, len(todo), batch_size)
            for start in track(starts, f"explaining {len(todo)} items", enabled=progress):
                batch = todo[start : start + batch_size]
                for request, raw in zip(batch, backend.generate(batch, settings)):
                    if not raw.strip():
                        summary.problems.append(
                            {"task": request.task, "id": request.id, "problem": "empty explanation"}
                        )
                        continue
                    label = labels[(request.task, request.id)]
                    log.append(
                        Explanation(
                            request.id,
                            raw.strip(),
                            request.task,
                            label if isinstance(label, str) else ",".join(label),
                            request.prompt,
                            WHY_PROMPT_VERSION,
                        ).row()
                    )
                    summary.written += 1
        folder.merge([(r.task, r.id) for r in requests])
        folder.write_problems(summary.problems)
    return summary
