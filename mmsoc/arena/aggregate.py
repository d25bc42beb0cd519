"""From votes to one label per battle, as SocialArena aggregates: at least N annotators, the majority
label, battles where all annotators disagree dropped (and counted); and the agreement figures it reports
(full agreement and full disagreement) against their chance levels under uniform random labels.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from math import perm

import numpy as np

from mmsoc.arena.records import LABELS, Battle


@dataclass(frozen=True)
class Outcome:
    """A battle's aggregated label; ``order`` is its position for online Elo."""

    battle: Battle
    label: str
    order: int


@dataclass(frozen=True)
class Aggregated:
    outcomes: list[Outcome]
    too_few: int
    """Battles with fewer than N votes (left out)."""
    all_disagree: int
    """Battles whose annotators all chose different labels (dropped)."""
    no_majority: int
    """Battles with two or more labels tied for the most votes, not all different (dropped; only with
    four or more annotators)."""

    @property
    def dropped(self) -> int:
        return self.all_disagree + self.no_majority


def majority(labels: Sequence[str]) -> str | None:
    """The label with strictly the most votes; None when the top is shared."""
    counts = Counter(labels).most_common()
    if not counts or (len(counts) > 1 and counts[0][1] == counts[1][1]):
        return None
    return counts[0][0]


def all_differ(labels: Sequence[str]) -> bool:
    return len(labels) > 1 and len(set(labels)) == len(labels)


def aggregate(battles: Sequence[Battle], min_annotators: int) -> Aggregated:
    """Majority label of each battle with at least ``min_annotators`` votes, in online-Elo order: by the
    time of the battle's first vote, then file order."""
    kept, too_few, disagree, tied = [], 0, 0, 0
    for position, battle in enumerate(battles):
        labels = [vote.label for vote in battle.votes]
        if len(labels) < max(min_annotators, 1):
            too_few += 1
            continue
        if all_differ(labels):
            disagree += 1
            continue
        label = majority(labels)
        if label is None:
            tied += 1
            continue
        kept.append((min(vote.time for vote in battle.votes), position, battle, label))
    kept.sort(key=lambda entry: (entry[0], entry[1]))
    outcomes = [Outcome(battle, label, k) for k, (_, _, battle, label) in enumerate(kept)]
    return Aggregated(outcomes, too_few, disagree, tied)


def chance_full_agreement(annotators: int, labels: int = len(LABELS)) -> float:
    """P(all ``annotators`` pick the same label) under independent uniform labels: L * (1/L)^n."""
    return labels * (1 / labels) ** annotators


def chance_full_disagreement(annotators: int, labels: int = len(LABELS)) -> float:
    """P(all pick different labels) under independent uniform labels: L! / (L - n)! / L^n."""
    return perm(labels, annotators) / labels**annotators if annotators <= labels else 0.0


def agreement(battles: Sequence[Battle], min_annotators: int, rounds: int, seed: int) -> dict:
    """Full agreement and full disagreement over battles with at least max(2, N) votes, with chance levels
    (the mean over those battles of each battle's chance for its number of annotators) and 95% bootstrap
    intervals over battles."""
    counted = [[vote.label for vote in b.votes] for b in battles if len(b.votes) >= max(2, min_annotators)]
    if not counted:
        return {"battles": 0, "note": "no battle has two or more votes"}
    same = np.array([len(set(labels)) == 1 for labels in counted], dtype=float)
    differ = np.array([all_differ(labels) for labels in counted], dtype=float)
    sizes = Counter(len(labels) for labels in counted)
    out: dict = {
        "battles": len(counted),
        "annotators_per_battle": {str(k): v for k, v in sorted(sizes.items())},
        "labels": len(LABELS),
    }
    figures = (("full_agreement", same, chance_full_agreement), ("full_disagreement", differ, chance_full_disagreement))
    levels = [float(np.mean([chance(len(labels)) for labels in counted])) for _, _, chance in figures]
    judged = _judged([(values, level) for (_, values, _), level in zip(figures, levels)], rounds, seed)
    for (name, values, _), level, mark in zip(figures, levels, judged):
        low, high = share_interval(values, rounds, seed)
        out[name] = {
            "share": float(values.mean()),
            "lower": low,
            "upper": high,
            "chance": level,
            "verdict": _against(low, high, level, len(counted), mark.finding),
            "finding": mark.finding,
            "ci_adjusted": list(mark.ci_adjusted) if mark.ci_adjusted else None,
        }
    return out


def _judged(figures: list[tuple[np.ndarray, float]], rounds: int, seed: int) -> list:
    """Full agreement and full disagreement judged as one family, each battle its own cluster
    (``mmsoc.metrics.verdict.judge``)."""
    from mmsoc.metrics.verdict import Estimate, judge

    battles = tuple(str(k) for k in range(len(figures[0][0])))
    return judge([Estimate(values, battles, level) for values, level in figures], n_boot=rounds, seed=seed)


def share_interval(
    hits: Sequence[float] | np.ndarray, rounds: int, seed: int, totals: Sequence[float] | np.ndarray | None = None
) -> tuple[float | None, float | None]:
    """2.5% and 97.5% percentiles of sum(hits) / sum(totals) over units (battles) resampled with
    replacement; ``totals`` defaults to one per unit (the share of units that hit)."""
    hits = np.asarray(hits, dtype=float)
    totals = np.ones_like(hits) if totals is None else np.asarray(totals, dtype=float)
    if rounds < 1 or totals.sum() == 0:
        return None, None
    counts = np.random.default_rng(seed).multinomial(len(hits), np.full(len(hits), 1 / len(hits)), size=rounds)
    whole = counts @ totals
    shares = (counts @ hits)[whole > 0] / whole[whole > 0]
    return float(np.quantile(shares, 0.025)), float(np.quantile(shares, 0.975))


def _against(low: float | None, high: float | None, chance: float, battles: int, finding: str) -> str:
    """The share against its chance level, from enough battles (``mmsoc.metrics.verdict``): the family's
    finding, or why there is none."""
    from mmsoc.metrics.verdict import CHANCE_WORDS, interval_verdict

    words = interval_verdict(low, high, chance, battles, "battles")
    return finding if words in CHANCE_WORDS else words
