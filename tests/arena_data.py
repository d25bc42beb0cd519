"""Battles for the arena tests: simulated outcomes of models with known strengths, as votes files."""

from __future__ import annotations

import numpy as np

from mmsoc.arena.records import Battle, Vote


def simulate(true: dict[str, float], n: int, seed: int, p_tie: float = 0.1, p_both_bad: float = 0.05) -> list:
    """(model_a, model_b, label) of ``n`` battles between random pairs: a tie or both_bad at fixed rates,
    otherwise A wins with the Bradley-Terry probability on the Elo scale (base 10, scale 400)."""
    rng = np.random.default_rng(seed)
    names = list(true)
    out = []
    for _ in range(n):
        a, b = (str(x) for x in rng.choice(names, 2, replace=False))
        u = rng.random()
        p_a = 1.0 / (1.0 + 10 ** ((true[b] - true[a]) / 400.0))
        label = "tie" if u < p_tie else "both_bad" if u < p_tie + p_both_bad else "A" if rng.random() < p_a else "B"
        out.append((a, b, label))
    return out


def as_battles(triples: list, annotators: int = 1, start: float = 1_700_000_000.0) -> list[Battle]:
    """One battle per triple whose ``annotators`` votes all give its label, cast one second apart."""
    battles = []
    for k, (a, b, label) in enumerate(triples):
        votes = tuple(Vote(f"ann{j}", label, "", start + k + j / 10) for j in range(annotators))
        battles.append(
            Battle(
                id=f"b{k:05d}",
                item=f"i{k}",
                model_a=a,
                model_b=b,
                response_a=f"answer of {a}",
                response_b=f"answer of {b}",
                votes=votes,
            )
        )
    return battles
