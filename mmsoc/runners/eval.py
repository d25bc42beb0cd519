"""The evaluation loop: plan (task, seed, example) work, skip what is logged, shard, batch, log, score.

Within a task, work is sorted by prompt length inside windows of :data:`WINDOW_BATCHES` batches
(similar lengths share a batch, so less padding); the merged log is rewritten in the canonical order
at the end, and responses never depend on the batch. Each prediction is written and flushed as it is
made and the log is fsynced once per batch. A model that can ``prepare`` a batch (decode images, run
its processor) gets the next batch prepared on a background thread while the current one generates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmsoc.core.io import JsonlAppender
from mmsoc.core.records import Example
from mmsoc.core.runfolder import RunFolder
from mmsoc.models.base import GenerationSettings, Model, Prepares, Request, Text
from mmsoc.runners.config import RunConfig

GROWABLE = ("limit",)
"""A run folder's item limit may grow between runs (more items are added), never shrink."""
WINDOW_BATCHES = 16
"""Work is sorted by prompt length within windows of this many batches: long enough to group similar
lengths, short enough that a killed run has finished (nearly) a prefix of the work."""


@dataclass(frozen=True)
class WorkItem:
    """One prediction to make: an example of a task, asked with one seed."""

    example: Example
    request: Request
    prompt_version: str

    @property
    def key(self) -> tuple[str, str, int | None]:
        return self.example.task, self.example.id, self.request.seed


def resolve_prompts(
    tasks: Sequence[str], version: str | None = None, overrides: dict[str, str] | None = None
) -> dict[str, tuple[str, str]]:
    """Task -> (instruction text, prompt version) from the task table and optional overrides."""
    from mmsoc.tasks.prompts import prompt_for

    return {task: prompt_for(task, version=version, overrides=overrides) for task in tasks}


def plan(
    config: RunConfig, prompts: dict[str, tuple[str, str]], limit: int | None = None
) -> tuple[list[WorkItem], list[dict[str, Any]]]:
    """All work in the canonical order (task, then seed, then example) plus load problems."""
    from mmsoc.tasks import get_task, kind_of
    from mmsoc.tasks.data import LoadOptions, load_examples

    work: list[WorkItem] = []
    problems: list[dict[str, Any]] = []
    for task in config.tasks:
        spec = get_task(task)
        kind = kind_of(spec)
        loaded = load_examples(
            task, config.data, split=config.split, limit=limit, options=LoadOptions(text_length=config.text_length)
        )
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


def length_key(request: Request) -> tuple[int, int]:
    """Longest first: media parts (each expands to many tokens), then characters of text."""
    return -sum(not isinstance(part, Text) for part in request.parts), -len(request.prompt)


def by_length(items: Sequence[WorkItem], window: int) -> list[WorkItem]:
    """Each task's items sorted by prompt length within consecutive windows of ``window`` items (stable)."""
    out: list[WorkItem] = []
    start = 0
    while start < len(items):
        task = items[start].example.task
        stop = start
        while stop < len(items) and stop - start < window and items[stop].example.task == task:
            stop += 1
        out += sorted(items[start:stop], key=lambda w: length_key(w.request))
        start = stop
    return out


def _batches(items: Sequence[WorkItem], size: int) -> list[Sequence[WorkItem]]:
    return [items[start : start + size] for start in range(0, len(items), size)]


def _answers(
    model: Model, batches: Sequence[Sequence[WorkItem]], settings: GenerationSettings, problems: list[dict[str, Any]]
) -> Iterator[list[tuple[WorkItem, str]]]:
    """Each batch's (item, response) pairs, batch by batch; a model that ``prepare``s gets batch k+1
    prepared on a background thread while batch k generates."""
    if not isinstance(model, Prepares):
        for batch in batches:
            yield _generate(model, batch, settings, problems)
        return
    with ThreadPoolExecutor(1, thread_name_prefix="mmsoc-prepare") as pool:

        def ahead(k: int) -> Future | None:
            return pool.submit(model.prepare, [w.request for w in batches[k]]) if k < len(batches) else None

        upcoming = ahead(0)
        for k, batch in enumerate(batches):
            current, upcoming = upcoming, ahead(k + 1)
            yield _generate(model, batch, settings, problems, current)


def _generate(
    model: Model,
    batch: Sequence[WorkItem],
    settings: GenerationSettings,
    problems: list[dict[str, Any]],
    prepared: Future | None = None,
) -> list[tuple[WorkItem, str]]:
    """Responses for a batch; if the batch fails on bad input, retry item by item and record failures."""
    requests = [w.request for w in batch]
    try:
        if prepared is None:
            return list(zip(batch, model.generate(requests, settings)))
        return list(zip(batch, model.generate(requests, settings, prepared=prepared.result())))  # type: ignore[call-arg]
    except (OSError, ValueError) as err:
        if len(batch) == 1:
            w = batch[0]
            problems.append({"task": w.example.task, "id": w.example.id, "problem": f"generation failed: {err}"})
            return []
        return [pair for w in batch for pair in _generate(model, [w], settings, problems)]


def make_row(item: WorkItem, raw: str) -> dict[str, Any]:
    """The logged prediction: lenient parse (scored) and strict parse validity side by side."""
    from mmsoc.tasks import parse_response

    task = item.example.task
    lenient = parse_response(task, raw, mode="lenient")
    strict = parse_response(task, raw, mode="strict")
    return {
        "task": task,
        "id": item.example.id,
        "seed": item.request.seed,
        "prompt_version": item.prompt_version,
        "raw": raw,
        "parsed": _jsonable(lenient.label),
        "valid": bool(lenient.ok),
        "strict_valid": bool(strict.ok),
        "reference": _jsonable(item.example.label),
    }


def _jsonable(value: Any) -> Any:
    return list(value) if isinstance(value, (tuple, set, frozenset)) else value


def run_eval(
    config: RunConfig,
    run_dir: str | Path,
    make_model: Callable[[], Model],
    prompts: dict[str, tuple[str, str]] | None = None,
    batch_size: int = 8,
    limit: int | None = None,
    progress: bool = True,
    fast_metrics: bool = False,
    modalities: frozenset[str] = frozenset({"text"}),
    threads: int | None = None,
) -> dict[str, dict[str, Any]]:
    """Run (or resume) an evaluation into ``run_dir``; the main process returns its metrics (others {}).

    ``prompts`` (task -> (text, version), default: the table's) must match ``config.prompt_version``.
    Items whose image is missing are skipped (and recorded in problems.jsonl) when the model reads
    images (``modalities``). The model is only built when there is work left.

    Under ``accelerate launch`` process r takes work items r, r+world, ...; each appends to its own
    log and the main process merges them, after all finish, into the single-process order.
    ``threads``: torch intra-op threads of each process (default: :func:`~mmsoc.core.threads.default_threads`).
    ``runtime.json`` records the number of processes, the predictions each one made and the threads.
    """
    from mmsoc.core.distributed import run_state
    from mmsoc.core.threads import default_threads

    if batch_size < 1:
        raise ValueError(f"batch size must be >= 1, got {batch_size}")
    prompts = prompts or resolve_prompts(config.tasks)
    if config.prompt_version is not None and {t: v for t, (_, v) in prompts.items()} != config.prompt_version:
        raise ValueError("prompt versions of the config and of the prompts given differ")
    work, problems = plan(config, prompts, limit)  # bad data fails here, before RUN_DIR is claimed
    state = run_state()
    folder = RunFolder(run_dir)
    with ExitStack() as stack:
        if state.is_main_process:
            stack.enter_context(folder.lock())
        return _run(
            config,
            folder,
            work,
            problems,
            make_model,
            batch_size,
            progress,
            fast_metrics,
            modalities,
            limit,
            threads or default_threads(),
        )


def _run(
    config: RunConfig,
    folder: RunFolder,
    work: list[WorkItem],
    problems: list[dict[str, Any]],
    make_model: Callable[[], Model],
    batch_size: int,
    progress: bool,
    fast_metrics: bool,
    modalities: frozenset[str],
    limit: int | None,
    threads: int,
) -> dict[str, dict[str, Any]]:
    from mmsoc.core.distributed import run_state
    from mmsoc.core.threads import use_threads
    from mmsoc.runners.summary import summarize

    state = run_state()
    identity = {**config.to_json(), "limit": limit}
    if state.is_main_process:
        folder.check(identity, GROWABLE)
        folder.repair()
    state.wait_for_everyone()
    folder.check(identity, GROWABLE)
    done = folder.done()
    if "image" in modalities:
        blind = [w for w in work if not w.example.images and not _text_only(w.example.task)]
        problems += [
            {"task": w.example.task, "id": w.example.id, "problem": "no readable image; skipped"} for w in blind
        ]
        work = [w for w in work if w.example.images or _text_only(w.example.task)]
    mine = [w for w in work[state.process_index :: state.num_processes] if w.key not in done]
    use_threads(threads)
    model = make_model() if mine else None  # a model that fails to load leaves RUN_DIR unclaimed
    use_threads(threads)  # again, should loading the model have changed them
    if state.is_main_process:
        folder.claim(identity, GROWABLE)
    state.wait_for_everyone()
    runtime: list[dict[str, Any]] = []
    predicted = 0
    if model is not None:
        batches = _batches(by_length(mine, WINDOW_BATCHES * batch_size), batch_size)
        with JsonlAppender(folder.own_log(state.process_index, state.num_processes)) as log:
            answers = _answers(model, batches, config.settings, runtime)
            for pairs in _progress(answers, len(batches), progress and state.is_main_process):
                for item, raw in pairs:
                    log.append(make_row(item, raw))  # written and flushed: a killed process keeps it
                    predicted += 1
                log.sync()  # durable on disk, once per batch
    counts = [predicted]
    if state.num_processes > 1:
        from accelerate.utils import gather_object

        runtime, counts = gather_object(runtime), gather_object(counts)
    state.wait_for_everyone()
    metrics: dict[str, dict[str, Any]] = {}
    if state.is_main_process:
        order = [w.key for w in work]
        asked = set(order)
        rows = [row for row in folder.merge(order) if folder.key(row) in asked]
        folder.write_problems(problems + runtime)
        folder.write_runtime({"processes": state.num_processes, "predicted": counts, "threads": threads})
        metrics = summarize(rows, config.tasks, fast=fast_metrics)
        folder.write_metrics(metrics)
    state.wait_for_everyone()
    return metrics


def _text_only(task: str) -> bool:
    """Whether the task asks with text alone (its kind declares ``text_only``), so it has no image to miss."""
    from mmsoc.tasks import kind_of

    return bool(getattr(kind_of(task), "text_only", False))


def _progress(batches: Iterator, total: int, show: bool) -> Iterator:
    if not show:
        yield from batches
        return
    from rich.progress import track

    yield from track(batches, total=total, description="generating", transient=True)
