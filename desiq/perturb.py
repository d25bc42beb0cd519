"""Applying a perturbation record (``desiq.perturbations``) to items: a pure function of (items, seed).

Every replacement comes from a different question (for A2 pairs: never from another pair of the same
question), never repeats an option already present and never brings the item's own correct answer
back as a distractor. NCAQ drops the question here; its other half, no context, is a matter of what a
model is given (inputs ``a``: no transcript, video or audio), so probes score NCAQ with a model trained
and tested on the options only (``desiq.probe``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np

from desiq.perturbations import PERTURBATIONS, Perturbation, Pool, Scope, Target
from desiq.records import MCQAItem

MAX_DRAWS = 1000


@dataclass(frozen=True)
class PerturbResult:
    items: list[MCQAItem]
    options_replaced: int
    fallback_items: int
    """Items whose partner scope had too few questions (same-video), completed from other videos."""
    fallback_options: int


def perturb(
    items: Sequence[MCQAItem], perturbation: Perturbation | str, seed: int = 0, scope: Scope | str | None = None
) -> PerturbResult:
    """Apply one perturbation (a record, or the name of one in ``PERTURBATIONS``) to every item.

    The output depends only on (items, perturbation, seed, scope); ``scope`` overrides the record's.
    """
    record = PERTURBATIONS[perturbation] if isinstance(perturbation, str) else perturbation
    if record.replaces is Target.question:
        return PerturbResult([replace(item, question="") for item in items], 0, 0, 0)
    unlabelled = [item.id for item in items if not item.labelled]
    if unlabelled:
        raise ValueError(
            f"{record.name} needs labelled items; {len(unlabelled)} have no answer (first: {unlabelled[0]})"
        )
    sampler = _PartnerSampler(items, Scope(scope or record.scope), np.random.default_rng(seed))
    out, replaced, fallback_items, fallback_options = [], 0, 0, 0
    for k, item in enumerate(items):
        slots = [item.answer_idx] if record.replaces is Target.correct else list(item.incorrect_idx)
        options, kinds = list(item.options), list(item.option_kinds or [""] * len(item.options))
        fell_back = 0
        draws = sampler.partners(k)
        for slot in slots:
            text, was_fallback = _draw_option(items, item, options, draws, sampler.rng, record.pool)
            options[slot], kinds[slot] = text, record.marker
            fell_back += was_fallback
        out.append(item.with_options(options, kinds))
        replaced += len(slots)
        fallback_items += fell_back > 0
        fallback_options += fell_back
    return PerturbResult(out, replaced, fallback_items, fallback_options)


def _draw_option(
    items: Sequence[MCQAItem],
    item: MCQAItem,
    options: list[str],
    draws: Iterator[tuple[int, bool]],
    rng: np.random.Generator,
    pool: Pool | None,
) -> tuple[str, bool]:
    """Draw partners until one offers an option from ``pool`` that is new to this item."""
    forbidden = set(options) | {item.answer}
    for partner, fallback in draws:
        source = items[partner]
        if pool is Pool.partner_answer:
            text = source.answer
        else:
            wrong = source.incorrect_idx
            text = source.options[wrong[int(rng.integers(len(wrong)))]]
        if text not in forbidden:
            return text, fallback
    raise ValueError(
        f"{item.id}: found no partner option that differs from the item's own options "
        f"after {MAX_DRAWS} draws (too few distinct questions?)"
    )


class _PartnerSampler:
    """Seeded stream of partner indices for one item, honouring the scope."""

    def __init__(self, items: Sequence[MCQAItem], scope: Scope, rng: np.random.Generator):
        self.items, self.scope, self.rng = items, scope, rng
        self.videos = np.array([item.video for item in items])
        self.questions = np.array([item.question_key for item in items])
        groups: dict[str, list[int]] = defaultdict(list)
        for k, item in enumerate(items):
            groups[item.video].append(k)
        self.groups = {video: np.array(ks) for video, ks in groups.items()}
        if len(set(self.questions.tolist())) < 2:
            raise ValueError("perturbations need at least two questions")
        if scope is not Scope.any and len(self.groups) < 2:
            raise ValueError(f"scope {scope.value} needs questions from at least two videos")

    def partners(self, k: int) -> Iterator[tuple[int, bool]]:
        """Yield (partner index, is_fallback) pairs; fallbacks only for same-video scope."""
        if self.scope is Scope.same_video:
            same = self.groups[self.items[k].video]
            for j in self.rng.permutation(same):
                if self.questions[j] != self.questions[k]:
                    yield int(j), False
            yield from self._random(k, other_video=True, fallback=True)
        else:
            yield from self._random(k, other_video=self.scope is Scope.other_video, fallback=False)

    def _random(self, k: int, other_video: bool, fallback: bool) -> Iterator[tuple[int, bool]]:
        n = len(self.items)
        for _ in range(MAX_DRAWS):
            j = int(self.rng.integers(n))
            if self.questions[j] == self.questions[k] or (other_video and self.videos[j] == self.videos[k]):
                continue
            yield j, fallback
