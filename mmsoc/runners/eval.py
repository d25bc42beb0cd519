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

from mmsoc.core.batching import BatchSizer
from mmsoc.core.io import JsonlAppender
from mmsoc.core.records import Example
from mmsoc.core.runfolder import RunFolder
from mmsoc.models.base import GenerationSettings, Model, Prepares, Request, Text
from mmsoc.runners.config import RunConfig
from mmsoc.runners.failures import MaxFailures, Tally

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
    instruction: str = ""
    prompt_tokens: int | None = None
    """Tokens the model is given (counted by models that count: ``mmsoc.runners.fitting``)."""
    text_tokens_dropped: int = 0

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
) -> tuple[list[WorkItem], list[dict[str, str]]]:
    """All work in the canonical order (task, then seed, then example) plus load problems."""
    from mmsoc.tasks import get_task, kind_of
    from mmsoc.tasks.data import LoadOptions, load_examples

    work: list[WorkItem] = []
    problems: list[dict[str, str]] = []
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
            work += [
                WorkItem(example, kind.request(spec, example, instruction, seed), version, instruction)
                for example in examples
            ]
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


def _answers(
    model: Model,
    items: Sequence[WorkItem],
    sizer: BatchSizer,
    settings: GenerationSettings,
    problems: list[dict[str, str]],
) -> Iterator[tuple[int, list[tuple[WorkItem, str]]]]:
    """(items asked, their (item, response) pairs), batch by batch, in batches of ``sizer``'s size; a model
    that ``prepare``s gets batch k+1 prepared on a background thread while batch k generates."""
    batches = sizer.batches(items)
    if not isinstance(model, Prepares):
        for batch in batches:
            yield len(batch), _sized(model, batch, sizer, settings, problems)
        return
    with ThreadPoolExecutor(1, thread_name_prefix="mmsoc-prepare") as pool:

        def ahead() -> tuple[Sequence[WorkItem], Future | None]:
            batch = next(batches, ())
            return batch, pool.submit(model.prepare, [w.request for w in batch]) if batch else None

        upcoming = ahead()
        while upcoming[0]:
            (batch, prepared), upcoming = upcoming, ahead()
            yield len(batch), _sized(model, batch, sizer, settings, problems, prepared)


def _sized(
    model: Model,
    batch: Sequence[WorkItem],
    sizer: BatchSizer,
    settings: GenerationSettings,
    problems: list[dict[str, str]],
    prepared: Future | None = None,
) -> list[tuple[WorkItem, str]]:
    """The batch's responses; split into smaller calls (which prepare their own inputs) when
    ``sizer``'s size has shrunk below it (``--batch-size auto`` after running out of memory)."""
    return sizer.run(
        batch, lambda chunk: _generate(model, chunk, settings, problems, prepared if chunk is batch else None)
    )


def _generate(
    model: Model,
    batch: Sequence[WorkItem],
    settings: GenerationSettings,
    problems: list[dict[str, str]],
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


def make_row(item: WorkItem, raw: str, prompt: str | None = None) -> dict[str, object]:
    """The logged prediction: lenient parse (scored) and strict parse validity side by side; the prompt's
    tokens (and the text tokens cut to fit) where the model counts them, the prompt itself when given."""
    from mmsoc.tasks import parse_response

    task = item.example.task
    lenient = parse_response(task, raw, mode="lenient")
    strict = parse_response(task, raw, mode="strict")
    counted: dict[str, int | str] = {} if item.prompt_tokens is None else {"prompt_tokens": item.prompt_tokens}
    if item.text_tokens_dropped:
        counted["text_tokens_dropped"] = item.text_tokens_dropped
    if prompt is not None:
        counted["prompt"] = prompt
    return {
        **counted,
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


def _jsonable(value: object) -> object:
    return list(value) if isinstance(value, (tuple, set, frozenset)) else value


def run_eval(
    config: RunConfig,
    run_dir: str | Path,
    make_model: Callable[[], Model],
    prompts: dict[str, tuple[str, str]] | None = None,
    batch_size: int | str = 8,
    limit: int | None = None,
    progress: bool = True,
    fast_metrics: bool = False,
    modalities: frozenset[str] = frozenset({"text"}),
    threads: int | None = None,
    log_prompts: bool = False,
    max_failures: MaxFailures | None = None,
) -> dict[str, dict[str, Any]]:
    """Run (or resume) an evaluation into ``run_dir``; the main process returns its metrics (others {}), or
    raises RunFailed (:mod:`mmsoc.runners.failures`) once they are written when no item succeeded or more
    failed than ``max_failures`` allows.

    ``prompts`` (task -> (text, version), default: the table's) must match ``config.prompt_version``.
    Items whose image is missing are skipped (and recorded in problems.jsonl) when the model reads
    images (``modalities``). The model is only built when there is work left.

    Under ``accelerate launch`` process r takes work items r, r+world, ...; each appends to its own
    log and the main process merges them, after all finish, into the single-process order.
    ``threads``: torch intra-op threads of each process (default: :func:`~mmsoc.core.threads.default_threads`).
    ``batch_size``: requests per call, or ``auto`` (:mod:`mmsoc.core.batching`). ``log_prompts``: rows
    carry the exact prompt. ``runtime.json`` records the number of processes, the predictions each one
    made, the threads, the batch size each used, how the model was loaded and how many items failed.
    """
    from mmsoc.core.cli import note
    from mmsoc.core.distributed import run_state
    from mmsoc.core.threads import default_threads

    sizer = BatchSizer(batch_size)
    prompts = prompts or resolve_prompts(config.tasks)
    if config.prompt_version is not None and {t: v for t, (_, v) in prompts.items()} != config.prompt_version:
        raise ValueError("prompt versions of the config and of the prompts given differ")
    work, problems = plan(config, prompts, limit)  # bad data fails here, before RUN_DIR is claimed
    state = run_state()
    folder = RunFolder(run_dir)
    with ExitStack() as stack:
        if state.is_main_process:
            stack.enter_context(folder.lock())
        metrics, tally = _run(
            config,
            folder,
            work,
            problems,
            make_model,
            sizer,
            progress,
            fast_metrics,
            modalities,
            limit,
            threads or default_threads(),
            log_prompts,
        )
    said = tally.verdict(max_failures) if tally is not None else None
    if said:
        note(said)
    return metrics


def _run(
    config: RunConfig,
    folder: RunFolder,
    work: list[WorkItem],
    problems: list[dict[str, str]],
    make_model: Callable[[], Model],
    sizer: BatchSizer,
    progress: bool,
    fast_metrics: bool,
    modalities: frozenset[str],
    limit: int | None,
    threads: int,
    log_prompts: bool,
) -> tuple[dict[str, dict[str, Any]], Tally | None]:
    """The metrics and the tally of the items (the main process's; others: {} and None)."""
    from mmsoc.core.distributed import run_state
    from mmsoc.core.threads import use_threads
    from mmsoc.runners.summary import summarize

    state = run_state()
    planned = [w.key for w in work]
    identity = {**config.to_json(), "limit": limit}
    if state.is_main_process:
        folder.check(identity, GROWABLE)
        folder.repair()
    state.wait_for_everyone()
    folder.check(identity, GROWABLE)
    done = folder.done()
    work = _askable(work, problems, modalities)
    mine = [w for w in work[state.process_index :: state.num_processes] if w.key not in done]
    use_threads(threads)
    model = make_model() if mine else None  # a model that fails to load leaves RUN_DIR unclaimed
    use_threads(threads)  # again, should loading the model have changed them
    if state.is_main_process:
        folder.claim(identity, GROWABLE, loaded=_model_runtime(model))
    state.wait_for_everyone()
    runtime: list[dict[str, Any]] = []
    predicted = 0
    if model is not None:
        from mmsoc.runners.fitting import fit_work

        mine, unfit = fit_work(model, mine, config.settings.max_new_tokens, config.fit)
        runtime += unfit
        answers = _answers(model, by_length(mine, WINDOW_BATCHES * sizer.size), sizer, config.settings, runtime)
        prompts = (getattr(model, "prompts", None) or _text_prompts) if log_prompts else None
        with JsonlAppender(folder.own_log(state.process_index, state.num_processes)) as log:
            for pairs in _progress(answers, len(mine), progress and state.is_main_process):
                shown = prompts([item.request for item, _ in pairs]) if prompts else [None] * len(pairs)
                for (item, raw), prompt in zip(pairs, shown):
                    log.append(make_row(item, raw, prompt))  # written and flushed: a killed process keeps it
                    predicted += 1
                log.sync()  # durable on disk, once per batch
    counts, sizes, loaded = [predicted], [sizer.size if model is not None else None], [_model_runtime(model)]
    if state.num_processes > 1:
        from accelerate.utils import gather_object

        runtime, counts = gather_object(runtime), gather_object(counts)
        sizes, loaded = gather_object(sizes), gather_object(loaded)
    state.wait_for_everyone()
    metrics: dict[str, dict[str, Any]] = {}
    tally = None
    if state.is_main_process:
        rows, tally = _logged(folder, planned, work, problems + runtime)
        folder.write_runtime(
            {
                "processes": state.num_processes,
                "predicted": counts,
                "threads": threads,
                "batch_size": "auto" if sizer.auto else sizer.size,
                "batch_size_used": sizes,
                "model": loaded,
                "log_prompts": log_prompts,
                **tally.to_json(),
            }
        )
        metrics = summarize(rows, config.tasks, fast=fast_metrics, progress=progress)
        folder.write_metrics(metrics)
    state.wait_for_everyone()
    return metrics, tally


def _logged(
    folder: RunFolder, planned: list[tuple[str, str, int | None]], asked: list[WorkItem], problems: list[dict[str, str]]
) -> tuple[list[dict[str, Any]], Tally]:
    """The rows of the items ``asked`` (the log merged in their order) and problems.jsonl written; the tally of the
    items ``planned`` (those skipped before they were asked among them)."""
    order = [w.key for w in asked]
    wanted = set(order)
    rows = [row for row in folder.merge(order) if folder.key(row) in wanted]
    folder.write_problems(problems)
    reasons = [((p["task"], p["id"]), p["problem"]) for p in problems]
    return rows, Tally.of(planned, {folder.key(row) for row in rows}, reasons, lambda key: key[:2])


def _askable(work: list[WorkItem], problems: list[dict[str, str]], modalities: frozenset[str]) -> list[WorkItem]:
    """The items a model that reads ``modalities`` is asked: for one that reads images, those with an image or
    asked with text alone, the others noted in ``problems`` as skipped."""
    if "image" not in modalities:
        return work
    blind = [w for w in work if not w.example.images and not _text_only(w.example.task)]
    problems += [{"task": w.example.task, "id": w.example.id, "problem": "no readable image; skipped"} for w in blind]
    return [w for w in work if w.example.images or _text_only(w.example.task)]


def _text_prompts(requests: Sequence[Request]) -> list[str]:
    """What a model without a prompt format of its own is given: the requests' text."""
    return [request.prompt for request in requests]


def _text_only(task: str) -> bool:
    """Whether the task asks with text alone (its kind's ``text_only``), so it has no image to miss."""
    from mmsoc.tasks import kind_of

    return kind_of(task).text_only


def _model_runtime(model: Model | None) -> dict[str, Any] | None:
    """What a model that reports on itself (``runtime()``: how it was loaded, which path ran) says, else None."""
    runtime = getattr(model, "runtime", None)
    return runtime() if runtime is not None else None


def _progress(batches: Iterator[tuple[int, list]], total: int, show: bool) -> Iterator[list]:
    """Each batch's pairs; with ``show``, a bar of the ``total`` items advanced by each batch's items."""
    from mmsoc.core.progress import steps

    with steps("generating", total=total, enabled=show) as bar:
        for asked, pairs in batches:
            yield pairs
            bar.advance(asked)
