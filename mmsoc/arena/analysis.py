"""Checks beside the ratings: SocialArena's bias checks (are winners longer? is A or B favoured?) and
judge agreement as its RewardBench reports it (label accuracy against reference votes; critique
consistency: token F1 of the judge's critique against the reference critique at least 0.5).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mmsoc.arena.aggregate import Outcome, majority, share_interval
from mmsoc.arena.records import LABELS, Battle
from mmsoc.core.io import InputError

CONSISTENT_F1 = 0.5
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def words(text: str) -> int:
    """Length in words (whitespace tokens)."""
    return len(text.split())


def _verdict(low: float | None, high: float | None, level: float, above: str, below: str) -> str:
    if low is None or high is None:
        return "no interval"
    if low > level:
        return above
    if high < level:
        return below
    return f"not distinguishable from {level:.0%}"


def length_bias(outcomes: Sequence[Outcome], rounds: int, seed: int) -> dict:
    """Among battles won by A or B whose responses differ in length: the share whose winner is longer
    (50% if length does not matter), and the winner's minus the loser's length in words."""
    diffs = []
    for o in outcomes:
        if o.label in ("A", "B"):
            a, b = o.battle.response_a, o.battle.response_b
            winner, loser = (a, b) if o.label == "A" else (b, a)
            diffs.append(words(winner) - words(loser))
    values = np.array(diffs, dtype=float)
    unequal = values[values != 0]
    longer = (unequal > 0).astype(float)
    low, high = share_interval(longer, rounds, seed)
    return {
        "decisive_battles": len(values),
        "equal_length": int((values == 0).sum()),
        "winner_longer_share": float(longer.mean()) if len(longer) else None,
        "lower": low,
        "upper": high,
        "verdict": _verdict(low, high, 0.5, "winners tend to be longer", "winners tend to be shorter"),
        "mean_difference_words": float(values.mean()) if len(values) else None,
        "median_difference_words": float(np.median(values)) if len(values) else None,
    }


def position_bias(battles: Sequence[Battle], rounds: int, seed: int) -> dict:
    """Shares of all individual votes per label, and among A-or-B votes the share for B (50% without a
    position effect)."""
    labels = [vote.label for battle in battles for vote in battle.votes]
    counts = Counter(labels)
    per_battle = [Counter(vote.label for vote in battle.votes) for battle in battles]
    b_votes = [c["B"] for c in per_battle]
    a_or_b = [c["A"] + c["B"] for c in per_battle]
    low, high = share_interval(b_votes, rounds, seed, totals=a_or_b)  # votes on one battle move together
    shares = {label: counts[label] / len(labels) if labels else None for label in LABELS}
    decided = counts["A"] + counts["B"]
    return {
        "votes": len(labels),
        "shares": shares,
        "b_share_of_a_or_b": counts["B"] / decided if decided else None,
        "lower": low,
        "upper": high,
        "verdict": _verdict(low, high, 0.5, "B is favoured", "A is favoured"),
    }


def normalise(text: str) -> list[str]:
    """SQuAD's answer normalisation: lower case, no punctuation, no articles, whitespace tokens."""
    return _ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION)).split()


def token_f1(prediction: str, reference: str) -> float:
    """SQuAD token F1 of two texts (bag of normalised words)."""
    pred, ref = normalise(prediction), normalise(reference)
    overlap = sum((Counter(pred) & Counter(ref)).values())
    if not pred or not ref or not overlap:
        return float(pred == ref)
    precision, recall = overlap / len(pred), overlap / len(ref)
    return 2 * precision * recall / (precision + recall)


def _agreement(pairs: list[tuple[str, str, str, str, list[str]]], rounds: int, seed: int) -> dict:
    """Label accuracy and critique consistency of (battle, label, reference label, critique, reference
    critiques) pairs; a critique is consistent when its best F1 over the references is >= 0.5. Intervals
    resample battles (votes on one battle move together)."""
    battles = sorted({pair[0] for pair in pairs})
    unit = {battle: k for k, battle in enumerate(battles)}
    sums = np.zeros((len(battles), 4))  # correct, votes, consistent, critiques compared
    f1s = []
    for battle, label, reference, critique, refs in pairs:
        row = sums[unit[battle]]
        row[:2] += (label == reference, 1)
        if critique.strip() and refs:
            f1s.append(max(token_f1(critique, r) for r in refs))
            row[2:] += (f1s[-1] >= CONSISTENT_F1, 1)
    total = sums.sum(0)
    low, high = share_interval(sums[:, 0], rounds, seed, totals=sums[:, 1])
    c_low, c_high = share_interval(sums[:, 2], rounds, seed, totals=sums[:, 3])
    return {
        "votes": len(pairs),
        "battles": len(battles),
        "label_accuracy": total[0] / total[1] if total[1] else None,
        "lower": low,
        "upper": high,
        "chance": 1 / len(LABELS),
        "critiques_compared": len(f1s),
        "critique_consistency": total[2] / total[3] if total[3] else None,
        "critique_lower": c_low,
        "critique_upper": c_high,
        "mean_critique_f1": float(np.mean(f1s)) if f1s else None,
    }


def judge_agreement(
    judged: Sequence[Battle], source: str | Path, reference: dict[str, tuple[Battle, str]], rounds: int, seed: int
) -> dict[str, dict]:
    """Per judge (annotator of ``judged``): agreement with the reference majority labels of the same battles."""
    by_judge: dict[str, list] = {}
    for battle in judged:
        if battle.id not in reference:
            continue
        ref, label = reference[battle.id]
        if battle.models != ref.models:
            raise InputError(
                source,
                f"battle {battle.id!r} is {battle.model_a} vs {battle.model_b} here but "
                f"{ref.model_a} vs {ref.model_b} in the reference votes",
                field="model_a",
            )
        critiques = [vote.critique for vote in ref.votes if vote.critique.strip()]
        for vote in battle.votes:
            by_judge.setdefault(vote.annotator, []).append((battle.id, vote.label, label, vote.critique, critiques))
    return {judge: _agreement(pairs, rounds, seed) for judge, pairs in sorted(by_judge.items())}


def human_baseline(battles: Sequence[Battle], rounds: int, seed: int) -> dict:
    """Each reference vote against the majority of the other votes on its battle (battles with three or
    more votes whose others have a majority): how well one annotator agrees with the rest."""
    pairs = []
    for battle in battles:
        if len(battle.votes) < 3:
            continue
        for k, vote in enumerate(battle.votes):
            others = battle.votes[:k] + battle.votes[k + 1 :]
            label = majority([v.label for v in others])
            if label is not None:
                refs = [v.critique for v in others if v.critique.strip()]
                pairs.append((battle.id, vote.label, label, vote.critique, refs))
    return _agreement(pairs, rounds, seed)
