"""The perturbations of the DeSIQ paper, option shuffling and the DeSIQ splits, as records.

Notation of the paper: an item has question q, correct option a and incorrect options i; a partner
item (another question) has q', a', i'. A record says what a perturbation changes, whether the answer
keeps its index, where a score lands under it, and holds its ``apply`` function (``desiq.perturbation_schemes``:
``FromPartner``, the paper's replace-from-partner scheme, ``drop_question``, ``shuffle_options``).
These records are all the rest of ``desiq`` knows of a perturbation: the command-line choices, the
``desiq eval`` conditions, the option markers a reader accepts and the rows of the probe table all come
from them. To add a perturbation, add one record to ``PERTURBATIONS`` (or declare ``PERTURBATION`` in a
plugin module).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

import numpy as np

from desiq.perturbation_schemes import FromPartner, Partners, PerturbResult, Pool, Scope, drop_question, shuffle_options
from desiq.records import MCQAItem
from mmsoc.core.registry import Registry

Apply = Callable[[Sequence[MCQAItem], Partners, np.random.Generator], PerturbResult]
"""A perturbation's function: (items, the partners they may draw from, the seeded generator) -> result."""


class Target(str, Enum):
    """A part of a question a perturbation changes."""

    question = "the question and the context"
    incorrect = "each incorrect option"
    correct = "the correct option"
    order = "the order of the options"


class Direction(str, Enum):
    """Where a score lands under a perturbation."""

    original = "about the original"
    chance = "chance"
    above = "far above chance"


@dataclass(frozen=True, kw_only=True)
class Perturbation:
    """One perturbation: its ``change`` in words, the ``targets`` it changes (every other part stays as it
    was), whether the correct option ``keeps_answer_index`` (else the answer index follows its option),
    and its ``apply`` function.

    ``bias``: where the paper's answer-only T5-small lands under it (Table 3: the signature of an
    answer-only bias, the probe table's expected-direction column), with the paper's numbers in
    ``found``. ``sound``: what the paper expects of a sound dataset (section 2). ``scope``: where partner
    questions come from unless the caller says otherwise; ``marker``: what ``idx_types`` says of an option
    it puts there. ``retrains``: scored by a model trained and tested on the options only (NCAQ), not by
    perturbing the eval set; ``needs_labels``: it needs each item's answer.
    """

    name: str
    change: str
    targets: frozenset[Target]
    keeps_answer_index: bool
    bias: Direction
    sound: Direction
    apply: Apply
    found: str = ""
    scope: Scope = Scope.any
    marker: str | None = None
    retrains: bool = False
    needs_labels: bool = True

    def __post_init__(self) -> None:
        if not self.targets:
            raise ValueError(f"perturbation {self.name}: it must change something (targets)")
        if not self.keeps_answer_index and Target.order not in self.targets:
            raise ValueError(f"perturbation {self.name}: an answer index moves only with the order of the options")

    @property
    def expected(self) -> str:
        """Where an answer-only bias puts the score, in words, with the paper's numbers."""
        return f"{self.bias.value} ({self.found})" if self.found else self.bias.value


def from_partner(
    name: str,
    replaces: Target,
    pool: Pool,
    marker: str,
    bias: Direction,
    sound: Direction,
    found: str = "",
    scope: Scope = Scope.any,
) -> Perturbation:
    """A perturbation of the paper's scheme (``FromPartner``): ``replaces`` (the correct option, or each
    incorrect one) becomes an option from ``pool`` of a partner question, marked ``marker``."""
    if replaces not in (Target.incorrect, Target.correct) or not marker:
        raise ValueError(f"perturbation {name}: a partner replaces an option (correct or incorrect), with a marker")
    return Perturbation(
        name=name,
        change=f"{replaces.value} -> {pool.value}",
        targets=frozenset({replaces}),
        keeps_answer_index=True,
        bias=bias,
        sound=sound,
        apply=FromPartner(replaces is Target.correct, pool, marker),
        found=found,
        scope=scope,
        marker=marker,
    )


PAPER_V1 = "paper, T5-small on Social-IQ v1 dev, A2 / A4"
PERTURBATIONS: Registry[Perturbation] = Registry(
    "perturbation",
    {
        p.name: p
        for p in (
            Perturbation(
                name="NCAQ",
                change=(
                    f"drops {Target.question.value} (transcript, video, audio): the model sees the options only "
                    "(a perturbed file blanks the question; train and test with inputs a)"
                ),
                targets=frozenset({Target.question}),
                keeps_answer_index=True,
                bias=Direction.above,
                sound=Direction.chance,
                apply=drop_question,
                found="paper, T5-small on the options only: 100% / 100% on v1, 63.35% A4 on v2",
                retrains=True,
                needs_labels=False,
            ),
            from_partner(
                "RIWI",
                Target.incorrect,
                Pool.partner_distractor,
                "riwi",
                Direction.original,
                Direction.original,
                f"{PAPER_V1}: 97.37% / 99.97%",
            ),
            from_partner(
                "RIWA",
                Target.incorrect,
                Pool.partner_answer,
                "riwa",
                Direction.chance,
                Direction.original,
                f"{PAPER_V1}: 50.21% / 25.03%",
            ),
            from_partner(
                "RAWI",
                Target.correct,
                Pool.partner_distractor,
                "rawi",
                Direction.chance,
                Direction.chance,
                f"{PAPER_V1}: 49.93% / 23.76%",
            ),
            from_partner(
                "RAWA",
                Target.correct,
                Pool.partner_answer,
                "rawa",
                Direction.original,
                Direction.chance,
                f"{PAPER_V1}: 97.25% / 100%",
            ),
            Perturbation(
                name="SHUF",
                change=f"{Target.order.value} -> a seeded shuffle of them (the answer index follows its option)",
                targets=frozenset({Target.order}),
                keeps_answer_index=False,
                bias=Direction.original,
                sound=Direction.original,
                apply=shuffle_options,
                needs_labels=False,
            ),
        )
    },
)
"""The paper's perturbations (section 2), in the order of its table, then option shuffling (not in the paper: a
model without a position bias lands about the original under it); then those of plugin modules."""


def _collect(module: object) -> list[tuple[str, Perturbation]]:
    """A plugin module's ``PERTURBATION`` and ``PERTURBATIONS`` records."""
    records = [getattr(module, "PERTURBATION", None), *getattr(module, "PERTURBATIONS", ())]
    return [(p.name, p) for p in records if isinstance(p, Perturbation)]


PERTURBATIONS.plugins(_collect)

PAPER_DESIQ = "paper, after debiasing: a+t 22.66%, a+v 26.46% A4 on DeSIQ_d-2.0"
SPLITS: Registry[Perturbation] = Registry(
    "DeSIQ split variant",
    {
        "d": from_partner(
            "DeSIQ_d",
            Target.incorrect,
            Pool.partner_answer,
            "desiq_d",
            Direction.chance,
            Direction.chance,
            PAPER_DESIQ,
            Scope.other_video,
        ),
        "s": from_partner(
            "DeSIQ_s",
            Target.incorrect,
            Pool.partner_answer,
            "desiq_s",
            Direction.chance,
            Direction.chance,
            "",
            Scope.same_video,
        ),
    },
)
"""The DeSIQ splits (section 3): RIWA on train and dev, with partners from other videos (d) or the
same video (s). A model retrained on them without the video should be at chance (``bias``, ``sound``)
when it sees the options only; with the question it may legitimately do better."""


def markers() -> frozenset[str]:
    """Every marker a perturbation or split writes into ``idx_types``."""
    records = [*PERTURBATIONS.values(), *SPLITS.values()]
    return frozenset(p.marker for p in records if p.marker)


def correct_markers() -> frozenset[str]:
    """Markers of a substitute that counts as the correct option (RAWI, RAWA)."""
    records = [*PERTURBATIONS.values(), *SPLITS.values()]
    return frozenset(p.marker for p in records if p.marker and Target.correct in p.targets)
