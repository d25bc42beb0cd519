"""The ``desiq eval`` loop: asked questions in, one prediction row per (question, condition, rotation) out.

The run folder (``mmsoc.core.runfolder``) holds the identity (a different configuration is refused),
the lock, the append-only log and the merge: questions are asked one video at a time (so a model that
shares prefixes runs each video's media once) and their rows appended and synced per video, so a killed
run keeps every finished video and a rerun asks only what is missing. Under ``accelerate launch``
process r takes videos r, r + world, ... into its own log and the main process merges the logs into the
order one process would have written. The model is built only when work is left.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from desiq.llm.answers import loglik_choices, parsed_row
from desiq.llm.conditions import Asked
from desiq.llm.requests import Built, RequestBuilder
from mmsoc.core.io import JsonlAppender, UsageError
from mmsoc.core.runfolder import RunFolder
from mmsoc.media.base import MediaError
from mmsoc.models.base import Audio, GenerationSettings, Model, Request, Video
from mmsoc.models.budget import Fitted, Make, OverContext
from mmsoc.runners.failures import Tally

KEY_FIELDS = ("id", "condition", "rotation")
GROWABLE = ("limit",)
ANSWER_MODES = ("loglik", "generate")
_PART_TYPES = {"video": Video, "audio": Audio}


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
        "option_kinds": list(item.option_markers),
        "gold": item.answer_idx,
        "missing": built.missing,
        "prompt_tokens": built.prompt_tokens,
        "frames": built.frames,
        "frames_dropped": built.frames_dropped,
        "transcript_tokens_dropped": built.transcript_tokens_dropped,
    }


class Answerer:
    """Answers batches of asked questions with a model, by log-likelihood or by writing; each request is
    first fitted to the model's context (``mmsoc.models.budget``) where the model counts tokens."""

    def __init__(
        self,
        model: Model,
        builder: RequestBuilder,
        answer: str,
        settings: GenerationSettings,
        fit: str = "drop",
        log_prompts: bool = False,
    ):
        if answer not in ANSWER_MODES:
            raise ValueError(f"--answer {answer!r}: choose loglik or generate")
        self.model, self.builder, self.answer, self.settings = model, builder, answer, settings
        self.fit, self.log_prompts = fit, log_prompts
        self.problems: list[dict[str, Any]] = []

    def __call__(self, batch: Sequence[Asked], masks: Sequence[Sequence[str]] | None = None) -> list[dict[str, Any]]:
        """Rows for a batch; a batch that fails is retried question by question, a question whose media
        cannot be decoded is asked without them, and a question that still fails is recorded as a problem."""
        masks = masks or [()] * len(batch)
        try:
            counter = getattr(self.model, "inputs", None)
            fitted = fit_asked(counter, self.builder, batch, masks, self._reserve, self.fit)
            kept = [(a, b) for a, b in zip(batch, fitted) if isinstance(b, Built)]
            for a, b in zip(batch, fitted):
                if not isinstance(b, Built):
                    self._problem(a, b)
            return self._answer([a for a, _ in kept], [b for _, b in kept])
        except (OSError, ValueError, UsageError) as err:
            if len(batch) > 1:
                return [row for a, m in zip(batch, masks) for row in self([a], [m])]
            built = self.builder.build(batch[0], masks[0])
            carried = self.builder.media_of(built)
            if isinstance(err, MediaError) and carried:
                bad = [m for m in carried if err.path in built.request.media(_PART_TYPES[m])] or carried
                return self([batch[0]], [[*masks[0], *bad]])
            self._problem(batch[0], err)
            return []

    def _answer(self, batch: Sequence[Asked], built: Sequence[Built]) -> list[dict[str, Any]]:
        if not batch:
            return []
        requests = [b.request for b in built]
        rows = [_row(a, b) for a, b in zip(batch, built)]
        if self.log_prompts:
            prompts = getattr(self.model, "prompts", None)
            for row, text in zip(rows, prompts(requests) if prompts else [r.prompt for r in requests]):
                row["prompt"] = text
        if self.answer == "loglik":
            scores = self.model.score_options(requests, [b.answers for b in built])
            return [
                {
                    **row,
                    "scores": list(s.loglik),
                    "chars": list(s.chars),
                    **dict(zip(("chosen", "chosen_norm"), loglik_choices(s.loglik, s.chars))),
                }
                for row, s in zip(rows, scores)
            ]
        replies = self.model.generate(requests, self.settings)
        labels = self.builder.prompt.labels
        return [
            {**row, **parsed_row(reply, labels[: len(a.item.options)], b.answers, a.item.options)}
            for row, a, b, reply in zip(rows, batch, built, replies)
        ]

    def _reserve(self, built: Built) -> int:
        """Tokens a request needs after its prompt: its longest answer, or the tokens it may write."""
        if self.answer == "generate":
            return self.settings.max_new_tokens
        count = self.model.inputs.text_tokens  # type: ignore[attr-defined]
        return max((count(f" {answer}") for answer in built.answers), default=0) + 1

    def _problem(self, asked: Asked, err: Exception) -> None:
        self.problems.append(
            {
                "id": asked.item.id,
                "condition": asked.condition,
                "rotation": asked.rotation,
                "problem": f"{type(err).__name__}: {err}",
            }
        )


def fit_asked(
    counter: object,
    builder: RequestBuilder,
    batch: Sequence[Asked],
    masks: Sequence[Sequence[str]],
    reserve: Callable[[Built], int],
    policy: str,
) -> list[Built | OverContext]:
    """Each asked question built and, when ``counter`` counts tokens (a model's ``inputs``), fitted to its
    context: questions with the same video keep the same frames (so they share a prefix), transcripts are
    cut as needed."""
    from mmsoc.models.budget import Counts, fit_group

    if not isinstance(counter, Counts) or counter.context_length is None:
        return [builder.build(a, m) for a, m in zip(batch, masks)]
    out: list[Built | OverContext] = [builder.build(a, m) for a, m in zip(batch, masks)]
    groups: dict[tuple, list[int]] = {}
    for i, built in enumerate(out):
        assert isinstance(built, Built)
        groups.setdefault(built.request.media(Video), []).append(i)
    for videos, members in groups.items():
        frames = counter.frames_sampled(videos[0]) if videos else None  # type: ignore[attr-defined]

        def maker(i: int) -> Make:
            def make(kept: int | None, tokens: int | None) -> tuple[Request, int]:
                b = builder.build(batch[i], masks[i], kept, tokens, counter.text_tokens)
                return b.request, builder.transcript_length(batch[i], counter.text_tokens)

            return make

        first = [out[i] for i in members]
        fitted = fit_group(
            counter,
            [maker(i) for i in members],
            frames,
            [reserve(b) for b in first],  # type: ignore[arg-type]
            policy,
            [batch[i].item.id for i in members],
        )
        for i, b, f in zip(members, first, fitted):
            assert isinstance(b, Built)
            out[i] = f if isinstance(f, OverContext) else _fitted(b, f)
    return out


def _fitted(built: Built, fit: Fitted) -> Built:
    return replace(
        built,
        request=fit.request,
        frames=fit.frames,
        frames_dropped=fit.frames_dropped,
        transcript_tokens_dropped=fit.text_tokens_dropped,
        prompt_tokens=fit.prompt_tokens,
    )


def by_video(asked: Sequence[Asked]) -> list[list[Asked]]:
    """The asked questions grouped by video, videos in first-seen order, each group in canonical order."""
    groups: dict[str, list[Asked]] = {}
    for a in asked:
        groups.setdefault(a.item.video, []).append(a)
    return list(groups.values())


@dataclass(frozen=True)
class Answered:
    """What a run came to: its rows in canonical order, and the tally of its asked questions."""

    rows: list[dict[str, Any]]
    tally: Tally


def run_asked(
    asked: Sequence[Asked],
    identity: dict[str, Any],
    out: Path,
    make_answerer: Callable[[], Answerer],
    progress: bool = False,
) -> Answered | None:
    """Run (or resume) into ``out``, one video at a time (each video's media run once per process);
    the main process returns the rows in canonical order and the tally of the questions asked (others None),
    both in runtime.json. Under ``accelerate launch`` process r takes videos r, r + world, ..."""
    from accelerate.utils import gather_object

    from mmsoc.core.distributed import process_state

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
        videos = by_video(asked)[state.process_index :: state.num_processes]
        mine = [[a for a in video if a.key not in done] for video in videos]
        mine = [video for video in mine if video]
        answerer = make_answerer() if mine else None  # a model that fails to load leaves RUN_DIR unclaimed
        if state.is_main_process:
            folder.claim(identity, GROWABLE)
        state.wait_for_everyone()
        problems: list[dict[str, Any]] = []
        predicted = 0
        work: dict[str, Any] = {}
        if answerer is not None:
            with JsonlAppender(folder.own_log(state.process_index, state.num_processes)) as log:
                for video in _progress(mine, progress and state.is_main_process):
                    for row in answerer(video):
                        log.append(row)
                        predicted += 1
                    log.sync()
            problems = answerer.problems
            runtime = getattr(answerer.model, "runtime", None)
            work = runtime() if runtime else {}
        counts, works = [predicted], [work]
        if state.num_processes > 1:
            problems, counts, works = gather_object(problems), gather_object(counts), gather_object(works)
        state.wait_for_everyone()
        if not state.is_main_process:
            return None
        order = [a.key for a in asked]
        wanted = set(order)
        rows = [row for row in folder.merge(order) if folder.key(row) in wanted]
        folder.write_problems(problems, fields=("id", "condition", "rotation", "problem"))
        reasons = [((p["id"], p["condition"], p["rotation"]), p["problem"]) for p in problems]
        tally = Tally.of(order, {folder.key(row) for row in rows}, reasons)
        runtime = {"processes": state.num_processes, "predicted": counts, **summed(works), **tally.to_json()}
        folder.write_runtime(runtime)
        return Answered(rows, tally)


def summed(works: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The work counters of every process added up (lists joined, the mean rows per pass over all of
    them); the path each took (``path``, ``why``)."""
    out: dict[str, Any] = {}
    for work in works:
        for key, value in work.items():
            if isinstance(value, (int, list)) and not isinstance(value, bool):
                out[key] = out.get(key, type(value)()) + value
            else:
                out.setdefault(key, value)
    if out.get("forward_passes"):
        out["rows_per_pass"] = round(out["rows_scored"] / out["forward_passes"], 2)
    return out


def _progress(batches: list, show: bool) -> Iterator:
    from mmsoc.core.progress import track

    yield from track(batches, f"answering, {len(batches)} videos", enabled=show)
