"""Applying a perturbation (``desiq.perturbations``) to items: a pure function of (items, seed, scope).

A perturbation's ``apply`` takes (items, partners, rng): the items, the ``Partners`` their partner questions
are drawn from (the same items, under a scope) and one seeded generator for every draw; it returns a
``PerturbResult``. The implementations of this module:

- ``FromPartner``, the paper's scheme: an option is replaced by an option of a partner question. Every
  replacement comes from a different question (for A2 pairs: never from another pair of the same question)
  and is never equal, after whitespace and case normalisation (``same_text``), to an option the item has
  (before or after replacement) or to its correct answer; a replacement drawn from a partner's incorrect
  options is never that partner's own correct answer (a release may repeat a correct answer among its
  distractors). An option for which no partner offers such a text keeps its original text and is counted
  (``PerturbResult.dry_options``).
- ``drop_question``: NCAQ blanks the question; its other half, no context, is a matter of what a model is
  given (inputs ``a``: no transcript, video or audio), so probes score NCAQ with a model trained and tested
  on the options only (``desiq.probe_table``).
- ``shuffle_options``: each question's options in a seeded order, the answer index following its option.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import TYPE_CHECKING

import numpy as np

from desiq.records import MCQAItem

if TYPE_CHECKING:
    from desiq.perturbations import Perturbation

MAX_DRAWS = 1000


class Scope(str, Enum):
    """Where partner questions may come from."""

    any = "any"
    other_video = "other-video"
    same_video = "same-video"


class Pool(str, Enum):
    """Where a replacement option comes from."""

    partner_answer = "a partner's correct answer"
    partner_distractor = "a partner's incorrect option"


@dataclass(frozen=True)
class PerturbResult:
    items: list[MCQAItem]
    options_replaced: int = 0
    fallback_items: int = 0
    """Items whose partner scope had too few questions (same-video), completed from other videos."""
    fallback_options: int = 0
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
    from desiq.perturbations import PERTURBATIONS

    record = PERTURBATIONS[perturbation] if isinstance(perturbation, str) else perturbation
    unlabelled = [item.id for item in items if not item.labelled] if record.needs_labels else []
    if unlabelled:
        raise ValueError(
            f"{record.name} needs labelled items; {len(unlabelled)} have no answer (first: {unlabelled[0]})"
        )
    partners = Partners(items, Scope(scope or record.scope))
    return record.apply(items, partners, np.random.default_rng(seed))


def reorder(item: MCQAItem, order: Sequence[int]) -> MCQAItem:
    """The item with its options (and their markers) in ``order``: slot k asks option ``order[k]``; the answer
    index follows the correct option."""
    markers = [item.option_markers[i] for i in order] if item.option_markers else []
    gold = None if item.answer_idx is None else list(order).index(item.answer_idx)
    return replace(item.with_options([item.options[i] for i in order], markers), answer_idx=gold)


def shuffle_options(items: Sequence[MCQAItem], partners: Partners, rng: np.random.Generator) -> PerturbResult:
    """Each item's options in an order drawn from ``rng`` (one permutation per item, in item order)."""
    return PerturbResult([reorder(item, rng.permutation(len(item.options)).tolist()) for item in items])


def drop_question(items: Sequence[MCQAItem], partners: Partners, rng: np.random.Generator) -> PerturbResult:
    """Every item with its question blanked, its options as they are."""
    return PerturbResult([replace(item, question="") for item in items])


@dataclass(frozen=True)
class FromPartner:
    """The paper's scheme: the correct option (``correct``) or else each incorrect option of a labelled item
    replaced by a partner's option from ``pool``, each marked ``marker`` in ``idx_types``."""

    correct: bool
    pool: Pool
    marker: str

    def __call__(self, items: Sequence[MCQAItem], partners: Partners, rng: np.random.Generator) -> PerturbResult:
        partners.check()
        out, replaced, fallback_items, fallback_options, dry_options, dry_items = [], 0, 0, 0, 0, 0
        for k, item in enumerate(items):
            slots = list(item.incorrect_idx)
            if self.correct and item.answer_idx is not None:
                slots = [item.answer_idx]
            options, markers = list(item.options), list(item.option_markers or [""] * len(item.options))
            fell_back = dry = 0
            draws = partners.draws(k, rng)
            for slot in slots:
                drawn = self._draw(items, item, options, draws, rng)
                if drawn is None:
                    dry += 1
                    continue
                options[slot], markers[slot] = drawn[0], self.marker
                fell_back += drawn[1]
            out.append(item.with_options(options, markers))
            replaced += len(slots) - dry
            fallback_items += fell_back > 0
            fallback_options += fell_back
            dry_items += dry > 0
            dry_options += dry
        return PerturbResult(out, replaced, fallback_items, fallback_options, dry_options, dry_items)

    def _draw(
        self,
        items: Sequence[MCQAItem],
        item: MCQAItem,
        options: list[str],
        draws: Iterator[tuple[int, bool]],
        rng: np.random.Generator,
    ) -> tuple[str, bool] | None:
        """Draw partners until one offers an option from the pool that is new to this item (None: the pool ran
        dry)."""
        forbidden = {same_text(text) for text in (*item.options, *options, item.answer or "")}
        for partner, fallback in draws:
            source = items[partner]
            answer = same_text(source.answer or "")
            if self.pool is Pool.partner_answer:
                text = source.answer or ""
            else:
                wrong = [j for j in source.incorrect_idx if same_text(source.options[j]) != answer]
                if not wrong:
                    continue
                text = source.options[wrong[int(rng.integers(len(wrong)))]]
            if same_text(text) not in forbidden:
                return text, fallback
        return None


class Partners:
    """The questions partners are drawn from (the items themselves) under a scope: a seeded stream of partner
    indices per item, never of the item's own question (``MCQAItem.question_key``: A2 pairs share theirs)."""

    def __init__(self, items: Sequence[MCQAItem], scope: Scope):
        self.items, self.scope = items, scope
        self.videos = np.array([item.video for item in items])
        self.questions = np.array([item.question_key for item in items])
        groups: dict[str, list[int]] = defaultdict(list)
        for k, item in enumerate(items):
            groups[item.video].append(k)
        self.groups = {video: np.array(ks) for video, ks in groups.items()}

    def check(self) -> None:
        """A ValueError unless every item can have a partner under the scope."""
        if len(set(self.questions.tolist())) < 2:
            raise ValueError("perturbations need at least two questions")
        if self.scope is not Scope.any and len(self.groups) < 2:
            raise ValueError(f"scope {self.scope.value} needs questions from at least two videos")

    def draws(self, k: int, rng: np.random.Generator) -> Iterator[tuple[int, bool]]:
        """Yield (partner index, is_fallback) pairs for item ``k``; fallbacks only for same-video scope."""
        if self.scope is Scope.same_video:
            same = self.groups[self.items[k].video]
            for j in rng.permutation(same):
                if self.questions[j] != self.questions[k]:
                    yield int(j), False
            yield from self._random(k, rng, other_video=True, fallback=True)
        else:
            yield from self._random(k, rng, other_video=self.scope is Scope.other_video, fallback=False)

    def _random(
        self, k: int, rng: np.random.Generator, other_video: bool, fallback: bool
    ) -> Iterator[tuple[int, bool]]:
        n = len(self.items)
        for _ in range(MAX_DRAWS):
            j = int(rng.integers(n))
            if self.questions[j] == self.questions[k] or (other_video and self.videos[j] == self.videos[k]):
                continue
            yield j, fallback
