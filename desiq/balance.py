"""Shortcut families at chance on a subset: what each family scores on each question, the largest subset
on which every family's accuracy is within a tolerance of chance (integer programming), and the options
reordered so that the correct option sits at every position equally often.

A **family** is one way to answer without the video: a shortcut of ``desiq.probes.heuristics`` (its ties
counted as a share, ``desiq.probes.ties``), a blind probe's cross-fitted picks from a ``per_item.jsonl``,
the correct option's position, or a probe retrained on the kept questions. Its hit on a question is 1, 0,
a share (a tie at the top) or NaN where it does not apply; chance is 1/K per question.

The selection keeps the most questions such that, for every family, the right answers among the kept are
in the proportion chance gives (within the tolerance): ``scipy.optimize.milp`` with one pair of linear
constraints per family. It keeps questions a family answers, as many as chance allows, rather than
dropping them all (which pushes the family below chance: anything but its pick wins about 1/(K-1)).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from desiq.probes.shortcuts import SHORTCUTS
from desiq.probes.ties import hit_share
from desiq.records import MCQAItem
from mmsoc.metrics.bootstrap import cluster_bootstrap_ci

if TYPE_CHECKING:
    from desiq.probes import ProbeBackend

SHORTCUT, PROBE, POSITION, RETRAINED = "shortcut", "probe", "gold position", "retrained"
SELECTING = (SHORTCUT, PROBE, POSITION)
"""The categories a balanced subset must hold within the tolerance; the retrained probes are reported."""
MARGIN = 0.9
"""The share of the tolerance the selection aims within, so that rounding never crosses it."""
TIME_LIMIT_S = 300.0


@dataclass(frozen=True)
class Family:
    name: str
    category: str
    hits: np.ndarray
    """Per question: 1, 0 or a share of a hit; NaN where the family does not apply."""

    def on(self, keep: np.ndarray) -> Family:
        return replace(self, hits=self.hits[keep])


@dataclass(frozen=True)
class FamilyCheck:
    """A family's accuracy on a subset against chance, with a 95% interval that resamples videos."""

    name: str
    category: str
    accuracy: float
    chance: float
    n: int
    ci95: tuple[float, float]
    tolerance: float
    """In accuracy (a share), as the other fields."""

    @property
    def within(self) -> bool:
        return abs(self.accuracy - self.chance) <= self.tolerance + 1e-12

    def to_json(self) -> dict[str, Any]:
        return {
            "family": self.name,
            "category": self.category,
            "accuracy": self.accuracy,
            "chance": self.chance,
            "n": self.n,
            "ci95": list(self.ci95),
            "within_tolerance": self.within,
        }


def chances(items: Sequence[MCQAItem]) -> np.ndarray:
    return np.array([1 / len(item.options) for item in items])


def shortcut_families(items: Sequence[MCQAItem]) -> list[Family]:
    """Every registered shortcut that applies to some of ``items``, its ties counted as a share."""
    families = []
    for shortcut in SHORTCUTS:
        if shortcut.learns:  # position_prior: the position families cover it
            continue
        rule = shortcut.fit([])
        hits = np.full(len(items), np.nan)
        for k, item in enumerate(items):
            scores = rule(item)
            if scores is not None and item.answer_idx is not None:
                hits[k] = hit_share(scores.tolist(), item.answer_idx)
        if not np.isnan(hits).all():
            families.append(Family(shortcut.name, SHORTCUT, hits))
    return families


def position_families(items: Sequence[MCQAItem]) -> list[Family]:
    """Per position: whether the correct option sits there (NaN for questions with fewer options)."""
    most = max(len(item.options) for item in items)
    return [
        Family(
            f"gold at {p}",
            POSITION,
            np.array([float(item.answer_idx == p) if p < len(item.options) else np.nan for item in items]),
        )
        for p in range(most)
    ]


def probe_families(items: Sequence[MCQAItem], picks: dict[str, dict[str, int]]) -> list[Family]:
    """Per blind probe of a ``per_item.jsonl`` (``picks``: probe -> question id -> picked option)."""
    return [
        Family(name, PROBE, np.array([float(chosen[item.id] == item.answer_idx) for item in items]))
        for name, chosen in picks.items()
    ]


def check(family: Family, items: Sequence[MCQAItem], tolerance: float, seed: int = 0) -> FamilyCheck:
    """The family's accuracy on ``items`` (those it applies to) against chance."""
    applies = ~np.isnan(family.hits)
    scored = [item for item, a in zip(items, applies) if a]
    hits = family.hits[applies]
    if not scored:
        return FamilyCheck(family.name, family.category, float("nan"), float("nan"), 0, (np.nan, np.nan), tolerance)
    ci95 = cluster_bootstrap_ci(hits, [item.video for item in scored], seed=seed)
    chance = float(chances(scored).mean())
    return FamilyCheck(family.name, family.category, float(hits.mean()), chance, len(scored), ci95, tolerance)


def select(items: Sequence[MCQAItem], families: Sequence[Family], tolerance: float, min_keep: int) -> np.ndarray | None:
    """The largest subset (a mask over ``items``) of at least ``min_keep`` questions on which every family's
    accuracy is within ``tolerance`` (a share) of chance; None when there is none."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    n = len(items)
    if n < min_keep:
        return None
    aim, chance = MARGIN * tolerance, chances(items)
    rows, low, high = [np.ones(n)], [float(min_keep)], [np.inf]
    for family in families:
        applies = ~np.isnan(family.hits)
        excess = np.where(applies, np.nan_to_num(family.hits) - chance, 0.0)
        rows += [excess - aim * applies, excess + aim * applies]
        low += [-np.inf, 0.0]
        high += [0.0, np.inf]
    result = milp(
        -np.ones(n),
        integrality=np.ones(n),
        bounds=Bounds(0, 1),
        constraints=LinearConstraint(np.array(rows), low, high),
        options={"time_limit": TIME_LIMIT_S},
    )
    if result.x is None:
        return None
    return np.asarray(result.x > 0.5)


def reorder(items: Sequence[MCQAItem], seed: int = 0) -> list[MCQAItem]:
    """Each question's options in a seeded order, the answer index following its option, such that among
    the questions with K options the correct option is at each position equally often (give or take one)."""
    rng = np.random.default_rng(seed)
    out = list(items)
    for k in sorted({len(item.options) for item in items}):
        where = [n for n, item in enumerate(items) if len(item.options) == k]
        targets = np.empty(len(where), dtype=int)
        targets[rng.permutation(len(where))] = np.arange(len(where)) % k
        for n, target in zip(where, targets):
            item = items[n]
            others = [i for i in rng.permutation(k).tolist() if i != item.answer_idx]
            order = [*others[:target], item.answer_idx, *others[target:]]
            markers = tuple(item.option_markers[i] for i in order) if item.option_markers else ()
            options = tuple(item.options[i] for i in order)
            out[n] = replace(item, options=options, answer_idx=int(target), option_markers=markers)
    return out


def retrained_families(
    backend: ProbeBackend, items: Sequence[MCQAItem], inputs: Sequence[str], seed: int = 0
) -> list[Family]:
    """The probe retrained and tested on ``items`` alone, cross-fitted by video, per input setting."""
    from desiq.per_item import cross_fit

    families = []
    for setting in inputs:
        scores = cross_fit(backend, items, setting, seed)
        hits = np.array(
            [hit_share(s.tolist(), item.answer_idx) for s, item in zip(scores, items) if item.answer_idx is not None]
        )
        families.append(Family(f"{backend.name}:{setting} retrained", RETRAINED, hits))
    return families
