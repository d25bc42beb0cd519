"""Applying a perturbation record (``desiq.perturbations``) to items: a pure function of (items, seed).

Every replacement comes from a different question (for A2 pairs: never from another pair of the same
question) and is never equal, after whitespace and case normalisation (``same_text``), to an option the
item has (before or after replacement) or to its correct answer; a replacement drawn from a partner's
incorrect options is never that partner's own correct answer (a release may repeat a correct answer
among its distractors). An option for which no partner offers such a text keeps its original text and is
counted (``PerturbResult.dry_options``). NCAQ drops the question here; its other half, no context, is a
matter of what a model is given (inputs ``a``: no transcript, video or audio), so probes score NCAQ with
a model trained and tested on the options only (``desiq.probe``).
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
    dry_options: int = 0
    """Options left as they were because the pool ran dry (no partner offered an admissible text)."""
    dry_items: int = 0


def same_text(text: str) -> str:
    """A text as replacements are compared: whitespace runs collapsed, case folded."""
    return " ".join(text.split()).casefold()


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
    out, replaced, fallback_items, fallback_options, dry_options, dry_items = [], 0, 0, 0, 0, 0
    for k, item in enumerate(items):
        slots = [item.answer_idx] if record.replaces is Target.correct else list(item.incorrect_idx)
        options, kinds = list(item.options), list(item.option_kinds or [""] * len(item.options))
        fell_back = dry = 0
        draws = sampler.partners(k)
        for slot in slots:
            drawn = _draw_option(items, item, options, draws, sampler.rng, record.pool)
            if drawn is None:
                dry += 1
                continue
            options[slot], kinds[slot] = drawn[0], record.marker
            fell_back += drawn[1]
        out.append(item.with_options(options, kinds))
        replaced += len(slots) - dry
        fallback_items += fell_back > 0
        fallback_options += fell_back
        dry_items += dry > 0
        dry_options += dry
    return PerturbResult(out, replaced, fallback_items, fallback_options, dry_options, dry_items)


def _draw_option(
    items: Sequence[MCQAItem],
    item: MCQAItem,
    options: list[str],
    draws: Iterator[tuple[int, bool]],
    rng: np.random.Generator,
    pool: Pool | None,
) -> tuple[str, bool] | None:
    """Draw partners until one offers an option from ``pool`` that is new to this item (None: the pool ran dry)."""
    forbidden = {same_text(text) for text in (*item.options, *options, item.answer or "")}
    for partner, fallback in draws:
        source = items[partner]
        answer = same_text(source.answer or "")
        if pool is Pool.partner_answer:
            text = source.answer or ""
        else:
            wrong = [j for j in source.incorrect_idx if same_text(source.options[j]) != answer]
            if not wrong:
                continue
            text = source.options[wrong[int(rng.integers(len(wrong)))]]
        if same_text(text) not in forbidden:
            return text, fallback
    return None


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
