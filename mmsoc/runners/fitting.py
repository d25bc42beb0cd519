"""MM-Soc work fitted to the model's context: an item whose prompt (with its image tokens) and the tokens to
write would pass the language model's context has its text (a news article, a post) cut, the fewest words
needed; ``--fit error`` skips it as a problem instead. What was kept is recorded in each row."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from mmsoc.models.base import Model


def fit_work(model: Model, items: Sequence[Any], reserve: int, policy: str) -> tuple[list[Any], list[dict]]:
    """(the work items, fitted and counted, the problems of those that cannot fit); models that do not count
    tokens (servers, baselines) get the items unchanged."""
    from mmsoc.models.budget import Counts

    inputs = getattr(model, "inputs", None)
    if not isinstance(inputs, Counts) or inputs.context_length is None:
        return list(items), []
    out, problems = [], []
    for item in items:
        fits, count = inputs.fits(item.request, reserve)  # type: ignore[attr-defined]
        if fits:
            out.append(replace(item, prompt_tokens=count))
            continue
        cut = None if policy == "error" else _cut(inputs, item, reserve)
        if cut is None:
            over = f"{count} prompt tokens + {reserve} to write exceed the context of {inputs.context_length}"
            problems.append({"task": item.example.task, "id": item.example.id, "problem": over})
        else:
            out.append(cut)
    return out, problems


def _cut(inputs: Any, item: Any, reserve: int) -> Any:
    """The item with the most words of its text that fit (a binary search over words), or None."""
    from mmsoc.tasks import get_task, kind_of

    words = item.example.text.split()
    spec = get_task(item.example.task)

    def asked(n: int) -> Any:
        example = replace(item.example, text=" ".join(words[:n]))
        return kind_of(spec).request(spec, example, item.instruction, item.request.seed)

    low, high, best = 0, len(words) - 1, None
    while low <= high:
        middle = (low + high) // 2
        fits, count = inputs.fits(asked(middle), reserve)
        if fits:
            best, low = (middle, count), middle + 1
        else:
            high = middle - 1
    if best is None:
        return None
    whole = inputs.text_tokens(item.example.text)
    kept = inputs.text_tokens(" ".join(words[: best[0]]))
    return replace(item, request=asked(best[0]), prompt_tokens=best[1], text_tokens_dropped=whole - kept)
