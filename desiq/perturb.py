"""Bias-probing perturbations (NCAQ, RIWI, RIWA, RAWI, RAWA) as pure functions of (items, seed).

Notation of the DeSIQ paper: an item has question q, correct option a and incorrect options i;
a partner item (another question) has q', a', i'.

| kind | change                                   | slot(s) replaced      |
|------|------------------------------------------|-----------------------|
| NCAQ | drop the question (options only)         | none                  |
| RIWI | each i -> an i' of a partner             | every incorrect slot  |
| RIWA | each i -> the a' of a partner            | every incorrect slot  |
| RAWI | a -> an i' of a partner (counts correct) | the correct slot      |
| RAWA | a -> the a' of a partner                 | the correct slot      |

Every replacement comes from a different question, never repeats an option already present and
never brings the item's own correct answer back as a distractor.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from enum import Enum

import numpy as np

from desiq.records import MCQAItem

KINDS = ("NCAQ", "RIWI", "RIWA", "RAWI", "RAWA")
MAX_DRAWS = 1000


class Scope(str, Enum):
    """Where partner questions may come from."""

    any = "any"
    other_video = "other-video"
    same_video = "same-video"


@dataclass(frozen=True)
class PerturbResult:
    items: list[MCQAItem]
    options_replaced: int
    fallback_items: int
    """Items whose partner scope had too few questions (same-video), completed from other videos."""
    fallback_options: int


def perturb(items: Sequence[MCQAItem], kind: str, seed: int = 0, scope: Scope | str = Scope.any,
            marker: str | None = None) -> PerturbResult:
    """Apply one perturbation to every item; the output depends only on (items, kind, seed, scope).

    ``marker`` is the kind written into ``option_kinds`` for replaced options (default: the
    perturbation name in lower case).
    """
    kind = kind.upper()
    if kind not in KINDS:
        raise ValueError(f"unknown perturbation {kind!r}; choose from {', '.join(KINDS)}")
    if kind == "NCAQ":
        return PerturbResult([replace(item, question="") for item in items], 0, 0, 0)
    unlabelled = [item.qid for item in items if not item.labelled]
    if unlabelled:
        raise ValueError(f"{kind} needs labelled items; {len(unlabelled)} have no answer (first: {unlabelled[0]})")
    sampler = _PartnerSampler(items, Scope(scope), np.random.default_rng(seed))
    marker = marker or kind.lower()
    out, replaced, fallback_items, fallback_options = [], 0, 0, 0
    for k, item in enumerate(items):
        slots = [item.answer_idx] if kind.startswith("RA") else list(item.incorrect_idx)
        take_answer = kind.endswith("A")
        options, kinds = list(item.options), list(item.option_kinds or [""] * len(item.options))
        fell_back = 0
        draws = sampler.partners(k)
        for slot in slots:
            text, was_fallback = _draw_option(items, item, options, draws, sampler.rng, take_answer)
            options[slot], kinds[slot] = text, marker
            fell_back += was_fallback
        out.append(item.with_options(options, kinds))
        replaced += len(slots)
        fallback_items += fell_back > 0
        fallback_options += fell_back
    return PerturbResult(out, replaced, fallback_items, fallback_options)


def _draw_option(items: Sequence[MCQAItem], item: MCQAItem, options: list[str],
                 draws: Iterator[tuple[int, bool]], rng: np.random.Generator, take_answer: bool) -> tuple[str, bool]:
    """Draw partners until one offers an option that is new to this item."""
    forbidden = set(options) | {item.answer}
    for partner, fallback in draws:
        source = items[partner]
        if take_answer:
            text = source.answer
        else:
            wrong = source.incorrect_idx
            text = source.options[wrong[int(rng.integers(len(wrong)))]]
        if text not in forbidden:
            return text, fallback
    raise ValueError(f"{item.qid}: found no partner option that differs from the item's own options "
                     f"after {MAX_DRAWS} draws (too few distinct questions?)")


class _PartnerSampler:
    """Seeded stream of partner indices for one item, honouring the scope."""

    def __init__(self, items: Sequence[MCQAItem], scope: Scope, rng: np.random.Generator):
        self.items, self.scope, self.rng = items, scope, rng
        self.videos = np.array([item.video for item in items])
        groups: dict[str, list[int]] = defaultdict(list)
        for k, item in enumerate(items):
            groups[item.video].append(k)
        self.groups = {video: np.array(ks) for video, ks in groups.items()}
        if len(items) < 2:
            raise ValueError("perturbations need at least two questions")
        if scope is not Scope.any and len(self.groups) < 2:
            raise ValueError(f"scope {scope.value} needs questions from at least two videos")

    def partners(self, k: int) -> Iterator[tuple[int, bool]]:
        """Yield (partner index, is_fallback) pairs; fallbacks only for same-video scope."""
        if self.scope is Scope.same_video:
            same = self.groups[self.items[k].video]
            for j in self.rng.permutation(same):
                if j != k:
                    yield int(j), False
            yield from self._random(k, other_video=True, fallback=True)
        else:
            yield from self._random(k, other_video=self.scope is Scope.other_video, fallback=False)

    def _random(self, k: int, other_video: bool, fallback: bool) -> Iterator[tuple[int, bool]]:
        n = len(self.items)
        for _ in range(MAX_DRAWS):
            j = int(self.rng.integers(n))
            if j == k or (other_video and self.videos[j] == self.videos[k]):
                continue
            yield j, fallback
