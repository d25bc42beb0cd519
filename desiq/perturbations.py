"""The perturbations of the DeSIQ paper and the DeSIQ splits, as records.

Notation of the paper: an item has question q, correct option a and incorrect options i; a partner
item (another question) has q', a', i'. Each record says what is replaced, from which pool, the
marker written into ``idx_types`` for a replaced option, and what a sound dataset gives under it.
These records are all the rest of ``desiq`` knows of a perturbation: the engine
(``desiq.perturb``), the command-line choices, the option kinds a reader accepts and the rows of
the probe table all come from them. To add a perturbation, add one record to ``PERTURBATIONS`` (or
declare ``PERTURBATION`` in a plugin module).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from mmsoc.core.registry import Registry


class Target(str, Enum):
    """What a perturbation replaces."""

    question = "the question and the context"
    incorrect = "each incorrect option"
    correct = "the correct option"


class Pool(str, Enum):
    """Where a replacement option comes from."""

    partner_answer = "a partner's correct answer"
    partner_distractor = "a partner's incorrect option"


class Scope(str, Enum):
    """Where partner questions may come from."""

    any = "any"
    other_video = "other-video"
    same_video = "same-video"


class Direction(str, Enum):
    """Where a score lands under a perturbation."""

    original = "about the original"
    chance = "chance"
    above = "far above chance"


@dataclass(frozen=True)
class Perturbation:
    """One perturbation: ``replaces`` from ``pool`` (None: the target is dropped), the ``marker`` of a
    replaced option in ``idx_types``, the default partner ``scope`` and what the paper says of it.

    ``bias``: where the paper's answer-only T5-small lands under it (Table 3: the signature of an
    answer-only bias, the probe table's expected-direction column), with the paper's numbers in
    ``found``. ``sound``: what the paper expects of a sound dataset (section 2).
    """

    name: str
    replaces: Target
    pool: Pool | None
    marker: str | None
    bias: Direction
    sound: Direction
    found: str = ""
    scope: Scope = Scope.any

    def __post_init__(self) -> None:
        if self.replaces is Target.question:
            if self.pool is not None or self.marker is not None:
                raise ValueError(f"perturbation {self.name}: a dropped question takes no pool and no marker")
        elif self.pool is None or not self.marker:
            raise ValueError(f"perturbation {self.name}: a replaced option needs a pool and a marker")

    @property
    def replaces_option(self) -> bool:
        return self.replaces is not Target.question

    @property
    def retrains(self) -> bool:
        """Scored by a model trained and tested on the options only (NCAQ), not by perturbing the eval set."""
        return self.replaces is Target.question

    @property
    def change(self) -> str:
        """The change in words, e.g. "each incorrect option -> a partner's correct answer"."""
        if self.pool is None:
            return (
                f"drops {self.replaces.value} (transcript, video, audio): the model sees the options only "
                "(a perturbed file blanks the question; train and test with inputs a)"
            )
        return f"{self.replaces.value} -> {self.pool.value}"

    @property
    def expected(self) -> str:
        """Where an answer-only bias puts the score, in words, with the paper's numbers."""
        return f"{self.bias.value} ({self.found})" if self.found else self.bias.value


PAPER_V1 = "paper, T5-small on Social-IQ v1 dev, A2 / A4"
PERTURBATIONS: Registry[Perturbation] = Registry(
    "perturbation",
    {
        p.name: p
        for p in (
            Perturbation(
                "NCAQ",
                Target.question,
                None,
                None,
                Direction.above,
                Direction.chance,
                "paper, T5-small on the options only: 100% / 100% on v1, 63.35% A4 on v2",
            ),
            Perturbation(
                "RIWI",
                Target.incorrect,
                Pool.partner_distractor,
                "riwi",
                Direction.original,
                Direction.original,
                f"{PAPER_V1}: 97.37% / 99.97%",
            ),
            Perturbation(
                "RIWA",
                Target.incorrect,
                Pool.partner_answer,
                "riwa",
                Direction.chance,
                Direction.original,
                f"{PAPER_V1}: 50.21% / 25.03%",
            ),
            Perturbation(
                "RAWI",
                Target.correct,
                Pool.partner_distractor,
                "rawi",
                Direction.chance,
                Direction.chance,
                f"{PAPER_V1}: 49.93% / 23.76%",
            ),
            Perturbation(
                "RAWA",
                Target.correct,
                Pool.partner_answer,
                "rawa",
                Direction.original,
                Direction.chance,
                f"{PAPER_V1}: 97.25% / 100%",
            ),
        )
    },
)
"""The paper's perturbations (section 2), in the order of its table; then those of plugin modules."""


def _collect(module: object) -> list[tuple[str, Perturbation]]:
    """A plugin module's ``PERTURBATION`` and ``PERTURBATIONS`` records."""
    records = [getattr(module, "PERTURBATION", None), *getattr(module, "PERTURBATIONS", ())]
    return [(p.name, p) for p in records if isinstance(p, Perturbation)]


PERTURBATIONS.plugins(_collect)

PAPER_DESIQ = "paper, after debiasing: a+t 22.66%, a+v 26.46% A4 on DeSIQ_d-2.0"
SPLITS: Registry[Perturbation] = Registry(
    "DeSIQ split variant",
    {
        "d": Perturbation(
            "DeSIQ_d",
            Target.incorrect,
            Pool.partner_answer,
            "desiq_d",
            Direction.chance,
            Direction.chance,
            PAPER_DESIQ,
            Scope.other_video,
        ),
        "s": Perturbation(
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
    """Every option kind a perturbation or split writes."""
    records = [*PERTURBATIONS.values(), *SPLITS.values()]
    return frozenset(p.marker for p in records if p.marker)


def correct_markers() -> frozenset[str]:
    """Markers of a substitute that counts as the correct option (RAWI, RAWA)."""
    records = [*PERTURBATIONS.values(), *SPLITS.values()]
    return frozenset(p.marker for p in records if p.marker and p.replaces is Target.correct)
