"""The evaluation loop: plan (task, seed, example) work, skip what is logged, shard, batch, log, score."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmsoc.core.io import JsonlAppender
from mmsoc.core.records import Example
from mmsoc.core.runfolder import RunFolder
from mmsoc.models.base import Model, Request
from mmsoc.runners.config import RunConfig


GROWABLE = ("limit",)
"""A run folder's item limit may grow between runs (more items are added), never shrink."""


@dataclass(frozen=True)
class WorkItem:
    """One prediction to make: an example of a task, asked with one seed."""

    example: Example
    request: Request
    prompt_version: str

    @property
    def key(self) -> tuple[str, str, int | None]:
        return self.example.task, self.example.id, self.request.seed


def resolve_prompts(tasks: Sequence[str], version: str | None = None,
                    overrides: dict[str, str] | None = None) -> dict[str, tuple[str, str]]:
    """Task -> (instruction text, prompt version) from the task table and optional overrides."""
    from mmsoc.tasks.prompts import prompt_for

    return {task: prompt_for(task, version=version, overrides=overrides) for task in tasks}


def plan(config: RunConfig, prompts: dict[str, tuple[str, str]],
         limit: int | None = None) -> tuple[list[WorkItem], list[dict[str, Any]]]:
    """All work in the canonical order (task, then seed, then example) plus load problems."""
    from mmsoc.tasks import get_task, kind_of
    from mmsoc.tasks.data import LoadOptions, load_examples

    work: list[WorkItem] = []
    problems: list[dict[str, Any]] = []
    for task in config.tasks:
        spec = get_task(task)
        kind = kind_of(spec)
        loaded = load_examples(task, config.data, split=config.split, limit=limit,
                               options=LoadOptions(text_length=config.text_length))
        problems += [{"task": task, "id": p.id, "problem": str(p)} for p in loaded.problems]
        instruction, version = prompts[task]
        seen: set[str] = set()
        examples = []
        for example in loaded.examples:
            if example.id in seen:
                problems.append({"task": task, "id": example.id, "problem": "duplicate id; later copy skipped"})
                continue
            seen.add(example.id)
            examples.append(example)
        for seed in config.run_seeds:
            work += [WorkItem(example, kind.request(spec, example, instruction, seed), version) for example in examples]
    return work, problems


def _batches(items: Sequence[WorkItem], size: int) -> Iterator[Sequence[WorkItem]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _generate(model: Model, batch: Sequence[WorkItem], config: RunConfig,
              problems: list[dict[str, Any]]) -> list[tuple[WorkItem, str]]:
    """Responses for a batch; if the batch fails on bad input, retry item by item and record failures."""
    try:
        return list(zip(batch, model.generate([w.request for w in batch], config.settings)))
    except (OSError, ValueError) as err:
        if len(batch) == 1:
            w = batch[0]
            problems.append({"task": w.example.task, "id": w.example.id, "problem": f"generation failed: {err}"})
            return []
        return [pair for w in batch for pair in _generate(model, [w], config, problems)]


def make_row(item: WorkItem, raw: str) -> dict[str, Any]:
    """The logged prediction: lenient parse (scored) and strict parse validity side by side."""
    from mmsoc.tasks import parse_response

    task = item.example.task
    lenient = parse_response(task, raw, mode="lenient")
    strict = parse_response(task, raw, mode="strict")
    return {"task": task, "id": item.example.id, "seed": item.request.seed, "prompt_version": item.prompt_version,
            "raw": raw, "parsed": _jsonable(lenient.label), "valid": bool(lenient.ok),
            "strict_valid": bool(strict.ok), "reference": _jsonable(item.example.label)}


def _jsonable(value: Any) -> Any:
    return list(value) if isinstance(value, (tuple, set, frozenset)) else value


def run_eval(config: RunConfig, run_dir: str | Path, make_model: Callable[[], Model],
             prompts: dict[str, tuple[str, str]] | None = None, batch_size: int = 8, limit: int | None = None,
             progress: bool = True, fast_metrics: bool = False,
             modalities: frozenset[str] = frozenset({"text"})) -> dict[str, dict[str, Any]]:
    """Run (or resume) an evaluation into ``run_dir``; the main process returns its metrics (others {}).

    ``prompts`` (task -> (text, version), default: the table's) must match ``config.prompt_version``.
    Items whose image is missing are skipped (and recorded in problems.jsonl) when the model reads
    images (``modalities``). The model is only built when there is work left.

    Under ``accelerate launch`` process r takes work items r, r+world, ...; each appends to its own
    log and the main process merges them, after all finish, into the single-process order.
    ``runtime.json`` records the number of processes and the predictions each one made.
    """
    from mmsoc.core.distributed import process_state

    if batch_size < 1:
        raise ValueError(f"batch size must be >= 1, got {batch_size}")
    prompts = prompts or resolve_prompts(config.tasks)
    if config.prompt_version is not None and {t: v for t, (_, v) in prompts.items()} != config.prompt_version:
        raise ValueError("prompt versions of the config and of the prompts given differ")
    work, problems = plan(config, prompts, limit)  # bad data fails here, before RUN_DIR is claimed
    state = process_state()
    folder = RunFolder(run_dir)
    with ExitStack() as stack:
        if state.is_main_process:
            stack.enter_context(folder.lock())
        return _run(config, folder, work, problems, make_model, batch_size, progress, fast_metrics, modalities, limit)


def _run(config: RunConfig, folder: RunFolder, work: list[WorkItem], problems: list[dict[str, Any]],
         make_model: Callable[[], Model], batch_size: int, progress: bool, fast_metrics: bool,
         modalities: frozenset[str], limit: int | None) -> dict[str, dict[str, Any]]:
    from accelerate.utils import gather_object

    from mmsoc.core.distributed import process_state
    from mmsoc.runners.summary import summarize

    state = process_state()
    identity = {**config.to_json(), "limit": limit}
    if state.is_main_process:
        folder.check(identity, GROWABLE)
        folder.repair()
    state.wait_for_everyone()
    folder.check(identity, GROWABLE)
    done = folder.done()
    if "image" in modalities:
        blind = [w for w in work if not w.example.images and not _text_only(w.example.task)]
        problems += [{"task": w.example.task, "id": w.example.id, "problem": "no readable image; skipped"}
                     for w in blind]
        work = [w for w in work if w.example.images or _text_only(w.example.task)]
    mine = [w for w in work[state.process_index::state.num_processes] if w.key not in done]
    model = make_model() if mine else None  # a model that fails to load leaves RUN_DIR unclaimed
    if state.is_main_process:
        folder.claim(identity, GROWABLE)
    state.wait_for_everyone()
    runtime: list[dict[str, Any]] = []
    predicted = 0
    if model is not None:
        with JsonlAppender(folder.own_log(state.process_index, state.num_processes)) as log:
            for batch in _progress(list(_batches(mine, batch_size)), progress and state.is_main_process):
                for item, raw in _generate(model, batch, config, runtime):
                    log.append(make_row(item, raw))
                    predicted += 1
                log.sync()
    counts = [predicted]
    if state.num_processes > 1:
        runtime, counts = gather_object(runtime), gather_object(counts)
    state.wait_for_everyone()
    metrics: dict[str, dict[str, Any]] = {}
    if state.is_main_process:
        order = [w.key for w in work]
        asked = set(order)
        rows = [row for row in folder.merge(order) if folder.key(row) in asked]
        folder.write_problems(problems + runtime)
        folder.write_runtime({"processes": state.num_processes, "predicted": counts})
        metrics = summarize(rows, config.tasks, fast=fast_metrics)
        folder.write_metrics(metrics)
    state.wait_for_everyone()
    return metrics


def _text_only(task: str) -> bool:
    """Whether the task asks with text alone (its kind declares ``text_only``), so it has no image to miss."""
    from mmsoc.tasks import kind_of

    return bool(getattr(kind_of(task), "text_only", False))


def _progress(batches: list, show: bool) -> Iterator:
    if not show:
        yield from batches
        return
    from rich.progress import track

    yield from track(batches, description="generating", transient=True)
