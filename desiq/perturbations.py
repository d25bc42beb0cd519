"""The perturbations of the DeSIQ paper and the DeSIQ splits, as records.

Notation of the paper: an item has question q, correct option a and incorrect options i; a partner
item (another question) has q', a', i'. Each record says what is replaced, from which pool, the
marker written into ``idx_types`` for a replaced option, and what a sound dataset gives under it.
These records are all the rest of ``desiq`` knows of a perturbation: the engine
(``desiq.perturb``), the command-line choices, the option kinds a reader accepts and the rows of
the probe table all come from them. To add a perturbation, add one record to ``PERTURBATIONS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from mmsoc.core.registry import Registry


class Target(str, Enum):
    """What a perturbation replaces."""

    question = "the question"
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
    """What a sound dataset gives under a perturbation."""

    original = "about the original"
    chance = "chance"


@dataclass(frozen=True)
class Perturbation:
    """One perturbation: ``replaces`` from ``pool`` (None: the target is dropped), the ``marker`` of a
    replaced option in ``idx_types``, the ``direction`` a sound dataset gives (``condition``: when it
    holds) and the default partner ``scope``."""

    name: str
    replaces: Target
    pool: Pool | None
    marker: str | None
    direction: Direction
    condition: str = ""
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
    def change(self) -> str:
        """The change in words, e.g. "each incorrect option -> a partner's correct answer"."""
        if self.pool is None:
            return f"drops {self.replaces.value}"
        return f"{self.replaces.value} -> {self.pool.value}"

    @property
    def expected(self) -> str:
        """What a sound dataset gives, in words (the probe table's last column)."""
        return f"{self.direction.value} {self.condition}".strip()


PERTURBATIONS: Registry[Perturbation] = Registry("perturbation", {p.name: p for p in (
    Perturbation("NCAQ", Target.question, None, None, Direction.chance),
    Perturbation("RIWI", Target.incorrect, Pool.partner_distractor, "riwi", Direction.original),
    Perturbation("RIWA", Target.incorrect, Pool.partner_answer, "riwa", Direction.chance,
                 "for an answer-only probe"),
    Perturbation("RAWI", Target.correct, Pool.partner_distractor, "rawi", Direction.chance),
    Perturbation("RAWA", Target.correct, Pool.partner_answer, "rawa", Direction.chance,
                 "if answers depend on the question"),
)})
"""The paper's perturbations (section 2), in the order of its table."""

SPLITS: Registry[Perturbation] = Registry("DeSIQ split variant", {
    "d": Perturbation("DeSIQ_d", Target.incorrect, Pool.partner_answer, "desiq_d", Direction.chance,
                      "for an answer-only probe", Scope.other_video),
    "s": Perturbation("DeSIQ_s", Target.incorrect, Pool.partner_answer, "desiq_s", Direction.chance,
                      "for an answer-only probe", Scope.same_video),
})
"""The DeSIQ splits (section 3): RIWA on train and dev, with partners from other videos (d) or the
same video (s)."""


def markers() -> frozenset[str]:
    """Every option kind a perturbation or split writes."""
    records = [*PERTURBATIONS.values(), *SPLITS.values()]
    return frozenset(p.marker for p in records if p.marker)


def correct_markers() -> frozenset[str]:
    """Markers of a substitute that counts as the correct option (RAWI, RAWA)."""
    records = [*PERTURBATIONS.values(), *SPLITS.values()]
    return frozenset(p.marker for p in records if p.marker and p.replaces is Target.correct)
