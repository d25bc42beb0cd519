"""MM-Soc requests fitted to the model's context: an item whose prompt (with its image tokens) and the tokens
to write (or learn) would pass the language model's context has its text (a news article, a post) cut, the
fewest words needed; ``--fit error`` skips it as a problem instead. ``mmsoc eval`` records what was kept
in each row, ``mmsoc finetune`` in its run's counts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from mmsoc.core.records import Example
from mmsoc.models.base import Model, Request

if TYPE_CHECKING:
    from mmsoc.models.budget import Counts
    from mmsoc.runners.eval import WorkItem


@dataclass(frozen=True)
class Fit:
    """A request as it will be sent: its prompt tokens, and the text tokens cut to fit."""

    request: Request
    prompt_tokens: int
    text_tokens_dropped: int = 0


def counter_of(model: object) -> Counts | None:
    """The input side of a model that counts tokens against a known context (else None)."""
    from mmsoc.models.budget import Counts

    inputs = getattr(model, "inputs", model)
    return inputs if isinstance(inputs, Counts) and inputs.context_length is not None else None


def fit_request(
    inputs: Any, example: Example, instruction: str, request: Request, reserve: int, policy: str
) -> Fit | str:
    """The request fitted (its example's text cut, the most words that fit), or why it cannot be."""
    from mmsoc.tasks import get_task, kind_of

    fits, count = inputs.fits(request, reserve)
    if fits:
        return Fit(request, count)
    over = f"{count} prompt tokens + {reserve} to write exceed the context of {inputs.context_length}"
    if policy == "error":
        return over
    spec = get_task(example.task)
    words = example.text.split()

    def asked(n: int) -> Request:
        return kind_of(spec).request(spec, replace(example, text=" ".join(words[:n])), instruction, request.seed)

    best = _most_words(lambda n: inputs.fits(asked(n), reserve), len(words))
    if best is None:
        return over + " even without its text"
    kept, tokens = best
    dropped = inputs.text_tokens(example.text) - inputs.text_tokens(" ".join(words[:kept]))
    return Fit(asked(kept), tokens, dropped)


def _most_words(fits: Callable[[int], tuple[bool, int]], total: int) -> tuple[int, int] | None:
    """(the most words, below ``total``, with which the request fits, its tokens), by binary search."""
    low, high, best = 0, total - 1, None
    while low <= high:
        middle = (low + high) // 2
        ok, count = fits(middle)
        if ok:
            best, low = (middle, count), middle + 1
        else:
            high = middle - 1
    return best


def fit_work(
    model: Model, items: Sequence[WorkItem], reserve: int, policy: str
) -> tuple[list[WorkItem], list[dict[str, str]]]:
    """(the work items fitted and counted, the problems of those that cannot fit); models that do not count
    tokens (servers, baselines) get the items unchanged."""
    inputs = counter_of(model)
    if inputs is None:
        return list(items), []
    out, problems = [], []
    for item in items:
        try:
            fit = fit_request(inputs, item.example, item.instruction, item.request, reserve, policy)
        except (OSError, ValueError):  # media that cannot be read now: generation records why
            out.append(item)
            continue
        if isinstance(fit, str):
            problems.append({"task": item.example.task, "id": item.example.id, "problem": fit})
        else:
            out.append(
                replace(
                    item,
                    request=fit.request,
                    prompt_tokens=fit.prompt_tokens,
                    text_tokens_dropped=fit.text_tokens_dropped,
                )
            )
    return out, problems
