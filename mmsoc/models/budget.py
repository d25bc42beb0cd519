"""The context budget: how many tokens a model may be given, and fitting a request inside it.

A model that counts (:class:`Counts`, the ``hf`` backend) says how many tokens a request takes once
its processor has inserted the media tokens, and how long its language model's context is (from the
model config: ``max_position_embeddings`` of the text model, else the tokenizer's ``model_max_length``;
``--max-context`` overrides). :func:`fit` then makes a request fit: it drops frames (evenly) until the
longest request of a group fits, then shortens a text the caller can cut (a transcript, a news text);
``--fit error`` refuses instead, naming the item and its count.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from mmsoc.models.base import Request

FIT_POLICIES = ("drop", "error")
UNBOUNDED = 1_000_000
"""A tokenizer's ``model_max_length`` at or above this means 'not set'."""


@runtime_checkable
class Counts(Protocol):
    """A model that counts the tokens of its requests."""

    context_length: int | None

    def prompt_tokens(self, request: Request) -> int:
        """Tokens of the request's prompt as the model receives it (media tokens included)."""
        ...

    def text_tokens(self, text: str) -> int:
        """Tokens of a piece of text alone."""
        ...


class OverContext(ValueError):
    """A request cannot be made to fit (or ``--fit error`` was asked)."""


def context_length(config: Any, tokenizer: Any = None) -> int | None:
    """The language model's context from its config, else its tokenizer's limit (None: unknown)."""
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    for owner in (text, config):
        for key in ("max_position_embeddings", "n_positions", "max_sequence_length"):
            value = getattr(owner, key, None)
            if isinstance(value, int) and value > 0:
                return value
    limit = getattr(tokenizer, "model_max_length", None)
    return int(limit) if isinstance(limit, int) and 0 < limit < UNBOUNDED else None


@dataclass(frozen=True)
class Fitted:
    """A request as it will be sent, and what fitting it cost."""

    request: Request
    prompt_tokens: int
    frames: int | None
    """Frames kept per video (None: the request carries no video)."""
    frames_dropped: int = 0
    text_tokens_dropped: int = 0


Make = Callable[[int | None, int | None], tuple[Request, int]]
"""``make(frames, text_tokens)`` -> (request, tokens of its cuttable text): ``frames`` kept per video,
the cuttable text cut to ``text_tokens`` (None: whole)."""


def fit_group(
    model: Counts,
    makers: Sequence[Make],
    frames: int | None,
    reserve: Sequence[int],
    policy: str = "drop",
    ids: Sequence[str] = (),
) -> list[Fitted | OverContext]:
    """Fit requests that share their media: the same frames kept for all (so they share a prefix),
    as many as the longest request allows; then each request's own text is cut as far as it must be.
    ``reserve[i]``: tokens request i needs after its prompt (its longest answer, or the tokens to write)."""
    if policy not in FIT_POLICIES:
        raise ValueError(f"--fit {policy!r}: choose {' or '.join(FIT_POLICIES)}")
    budget = model.context_length
    first = [make(frames, None) for make in makers]
    counts = [model.prompt_tokens(request) for request, _ in first]
    if budget is None or all(c + r <= budget for c, r in zip(counts, reserve)):
        return [Fitted(request, c, frames) for (request, _), c in zip(first, counts)]
    if policy == "error":
        return [
            OverContext(
                f"{ids[i] if ids else i}: {c} prompt tokens + {r} for the answer exceed the context of {budget}"
            )
            if c + r > budget
            else Fitted(first[i][0], c, frames)
            for i, (c, r) in enumerate(zip(counts, reserve))
        ]
    kept = _frames_that_fit(model, makers, frames, reserve, counts, budget) if frames else frames
    return [
        _cut_text(model, make, kept, frames, r, budget, ids[i] if ids else str(i))
        for i, (make, r) in enumerate(zip(makers, reserve))
    ]


def _frames_that_fit(
    model: Counts, makers: Sequence[Make], frames: int, reserve: Sequence[int], counts: Sequence[int], budget: int
) -> int:
    """The most frames (at least 1) with which the longest request of the group fits."""
    worst = max(range(len(makers)), key=lambda i: counts[i] + reserve[i])
    need = counts[worst] + reserve[worst]
    text_only = model.prompt_tokens(makers[worst](0, None)[0]) + reserve[worst]
    per_frame = max((need - text_only) / frames, 1.0)
    kept = max(1, min(frames - 1, int((budget - text_only) // per_frame)))
    while kept > 1 and model.prompt_tokens(makers[worst](kept, None)[0]) + reserve[worst] > budget:
        kept -= 1
    while kept < frames - 1 and model.prompt_tokens(makers[worst](kept + 1, None)[0]) + reserve[worst] <= budget:
        kept += 1
    return kept


def _cut_text(
    model: Counts, make: Make, kept: int | None, frames: int | None, reserve: int, budget: int, name: str
) -> Fitted | OverContext:
    """The request with ``kept`` frames and its cuttable text shortened until it fits."""
    request, text = make(kept, None)
    count = model.prompt_tokens(request)
    allowed = text
    while count + reserve > budget and allowed > 0:
        allowed = max(0, min(allowed - 1, allowed - (count + reserve - budget)))
        request, _ = make(kept, allowed)
        count = model.prompt_tokens(request)
    if count + reserve > budget:
        return OverContext(
            f"{name}: {count} prompt tokens + {reserve} for the answer exceed the context of {budget}"
            " with one frame and no cuttable text"
        )
    dropped = (frames or 0) - (kept or 0)
    return Fitted(request, count, kept, dropped, text - allowed)
