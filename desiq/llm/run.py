"""The ``desiq eval`` loop: asked questions in, one prediction row per (question, condition, rotation) out.

The run folder (``mmsoc.core.runfolder``) holds the identity (a different configuration is refused),
the lock, the append-only log and the merge: rows are appended and synced per batch, so a killed run
keeps every finished prediction and a rerun asks only what is missing. Under ``accelerate launch``
process r takes questions r, r + world, ... into its own log and the main process merges the logs
into the order one process would have written. The model is built only when work is left.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from desiq.llm.answers import loglik_choices, parsed_row
from desiq.llm.conditions import Asked
from desiq.llm.requests import Built, RequestBuilder
from mmsoc.core.io import JsonlAppender, UsageError
from mmsoc.core.runfolder import RunFolder
from mmsoc.media.base import MediaError
from mmsoc.models.base import Audio, GenerationSettings, Model, Video

KEY_FIELDS = ("id", "condition", "rotation")
GROWABLE = ("limit",)
ANSWER_MODES = ("loglik", "generate")
_KINDS = {"video": Video, "audio": Audio}


def _row(asked: Asked, built: Built) -> dict[str, Any]:
    item = asked.item
    return {
        "id": item.id,
        "qid": item.qid,
        "vid_name": item.video,
        "source": asked.source,
        "condition": asked.condition,
        "config": asked.config,
        "rotation": asked.rotation,
        "options": list(item.options),
        "option_kinds": list(item.option_kinds),
        "gold": item.answer_idx,
        "missing": built.missing,
    }


class Answerer:
    """Answers batches of asked questions with a model, by log-likelihood or by writing."""

    def __init__(self, model: Model, builder: RequestBuilder, answer: str, settings: GenerationSettings):
        if answer not in ANSWER_MODES:
            raise ValueError(f"--answer {answer!r}: choose loglik or generate")
        self.model, self.builder, self.answer, self.settings = model, builder, answer, settings
        self.problems: list[dict[str, Any]] = []

    def __call__(self, batch: Sequence[Asked], masks: Sequence[Sequence[str]] | None = None) -> list[dict[str, Any]]:
        """Rows for a batch; a batch that fails is retried question by question, a question whose media
        cannot be decoded is asked without them, and a question that still fails is recorded as a problem."""
        built = [self.builder.build(a, m) for a, m in zip(batch, masks or [()] * len(batch))]
        requests = [b.request for b in built]
        try:
            if self.answer == "loglik":
                scores = self.model.score_options(requests, [b.answers for b in built])
                return [
                    {
                        **_row(a, b),
                        "scores": list(s.loglik),
                        "chars": list(s.chars),
                        **dict(zip(("chosen", "chosen_norm"), loglik_choices(s.loglik, s.chars))),
                    }
                    for a, b, s in zip(batch, built, scores)
                ]
            replies = self.model.generate(requests, self.settings)
            labels = self.builder.prompt.labels
            return [
                {**_row(a, b), **parsed_row(reply, labels, b.answers, a.item.options)}
                for a, b, reply in zip(batch, built, replies)
            ]
        except (OSError, ValueError, UsageError) as err:
            if len(batch) > 1:
                return [row for a, m in zip(batch, masks or [()] * len(batch)) for row in self([a], [m])]
            carried = self.builder.media_of(built[0])
            if isinstance(err, MediaError) and carried:
                bad = [m for m in carried if err.path in built[0].request.media(_KINDS[m])] or carried
                return self([batch[0]], [[*(masks or [()])[0], *bad]])
            asked = batch[0]
            self.problems.append(
                {
                    "id": asked.item.id,
                    "condition": asked.condition,
                    "rotation": asked.rotation,
                    "problem": f"{type(err).__name__}: {err}",
                }
            )
            return []


def _batches(items: Sequence[Asked], size: int) -> Iterator[Sequence[Asked]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def run_asked(
    asked: Sequence[Asked],
    identity: dict[str, Any],
    out: Path,
    make_answerer: Callable[[], Answerer],
    batch_size: int = 8,
    progress: bool = False,
) -> list[dict[str, Any]] | None:
    """Run (or resume) into ``out``; the main process returns the rows in canonical order (others None)."""
    from accelerate.utils import gather_object

    from mmsoc.core.distributed import process_state

    if batch_size < 1:
        raise ValueError(f"batch size must be >= 1, got {batch_size}")
    state = process_state()
    folder = RunFolder(out, KEY_FIELDS)
    with ExitStack() as stack:
        if state.is_main_process:
            stack.enter_context(folder.lock())
            folder.check(identity, GROWABLE)
            folder.repair()
        state.wait_for_everyone()
        folder.check(identity, GROWABLE)
        done = folder.done()
        mine = [a for a in asked[state.process_index :: state.num_processes] if a.key not in done]
        answerer = make_answerer() if mine else None  # a model that fails to load leaves RUN_DIR unclaimed
        if state.is_main_process:
            folder.claim(identity, GROWABLE)
        state.wait_for_everyone()
        problems: list[dict[str, Any]] = []
        predicted = 0
        if answerer is not None:
            with JsonlAppender(folder.own_log(state.process_index, state.num_processes)) as log:
                for batch in _progress(list(_batches(mine, batch_size)), progress and state.is_main_process):
                    for row in answerer(batch):
                        log.append(row)
                        predicted += 1
                    log.sync()
            problems = answerer.problems
        counts = [predicted]
        if state.num_processes > 1:
            problems, counts = gather_object(problems), gather_object(counts)
        state.wait_for_everyone()
        if not state.is_main_process:
            return None
        order = [a.key for a in asked]
        wanted = set(order)
        rows = [row for row in folder.merge(order) if folder.key(row) in wanted]
        folder.write_problems(problems, fields=("id", "condition", "rotation", "problem"))
        folder.write_runtime({"processes": state.num_processes, "predicted": counts})
        return rows


def _progress(batches: list, show: bool) -> Iterator:
    if not show:
        yield from batches
        return
    from rich.progress import track

    yield from track(batches, description="answering", transient=True)
