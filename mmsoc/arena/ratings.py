"""Ratings from battle outcomes with the formulas of FastChat's Chatbot Arena (lm-sys/FastChat
``fastchat/serve/monitor/rating_systems.py`` and ``elo_analysis.py``), written here with numpy and scipy.

SocialArena ranks by "Elo" but leaves the K-factor, ties and intervals unstated; FastChat's choices fill
them in: online Elo with k=4, base 10, scale 400, initial 1000; Bradley-Terry by maximum likelihood
(ties as half a win and half a loss, no regularisation, L-BFGS-B from zero, ``gtol=1e-6``, at most 100
iterations) on the Elo scale; intervals from the 2.5% and 97.5% quantiles of a seeded bootstrap that draws
the counts of each (model_a, model_b, outcome) cell from a multinomial, as FastChat does; the rank of a
model is 1 + the number of models whose lower bound is above its upper bound. FastChat shifts ratings so
that ``mixtral-8x7b-instruct-v0.1`` is 1114 when it is present; here no model is anchored, so Bradley-Terry
ratings average 1000.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

SCORE_A = {"A": 1.0, "B": 0.0, "tie": 0.5, "both_bad": 0.5}
"""Model A's score per label: FastChat scores "tie" and "tie (bothbad)" alike, 0.5."""
K, BASE, SCALE, INIT = 4.0, 10.0, 400.0, 1000.0
BT_TOL, BT_MAXITER = 1e-6, 100


@dataclass(frozen=True)
class Matchups:
    """Battles as arrays: model indices of A and B, and A's score, in battle order."""

    models: list[str]
    """In order of first appearance among all A models, then all B models (``pandas.factorize`` of
    FastChat's ``concat([model_a, model_b])``)."""
    a: np.ndarray
    b: np.ndarray
    score: np.ndarray

    @classmethod
    def of(cls, battles: Sequence[tuple[str, str, str]]) -> Matchups:
        """From (model_a, model_b, label) triples."""
        names = [a for a, _, _ in battles] + [b for _, b, _ in battles]
        models = list(dict.fromkeys(names))
        index = {m: k for k, m in enumerate(models)}
        a = np.array([index[m] for m, _, _ in battles], dtype=np.int64)
        b = np.array([index[m] for _, m, _ in battles], dtype=np.int64)
        score = np.array([SCORE_A[label] for _, _, label in battles], dtype=np.float64)
        return cls(models, a, b, score)

    def __len__(self) -> int:
        return len(self.score)


def online_elo(m: Matchups, k: float = K, base: float = BASE, scale: float = SCALE, init: float = INIT) -> np.ndarray:
    """Sequential Elo in battle order: E_a = 1 / (1 + base^((R_b - R_a) / scale)); R_a += k (S_a - E_a);
    R_b -= k (S_a - E_a)."""
    alpha = math.log(base) / scale
    ratings = np.full(len(m.models), init, dtype=np.float64)
    for a, b, score in zip(m.a.tolist(), m.b.tolist(), m.score.tolist()):
        update = k * (score - 1.0 / (1.0 + math.exp(alpha * (ratings[b] - ratings[a]))))
        ratings[a] += update
        ratings[b] -= update
    return ratings


def bt_cells(m: Matchups) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (a, b, outcome) cells, sorted, with A's score (1, 0.5, 0) and how many battles each holds."""
    schedule = np.column_stack([m.a, m.b, np.rint(m.score * 2).astype(np.int64)])
    cells, counts = np.unique(schedule, return_counts=True, axis=0)
    return cells[:, :2], cells[:, 2].astype(np.float64) / 2.0, counts.astype(np.float64)


def _bt_loss(
    theta: np.ndarray, pairs: np.ndarray, outcomes: np.ndarray, weights: np.ndarray, alpha: float
) -> tuple[float, np.ndarray]:
    """Weighted negative log-likelihood, P(a beats b) = sigmoid(alpha (theta_a - theta_b)); a tie (0.5)
    counts as half a win and half a loss."""
    probs = expit(alpha * (theta[pairs[:, 0]] - theta[pairs[:, 1]]))
    loss = -((np.log(probs) * outcomes + np.log(1.0 - probs) * (1.0 - outcomes)) * weights).sum()
    per_cell = -alpha * (outcomes - probs) * weights
    grad = np.bincount(pairs[:, 0], per_cell, len(theta)) - np.bincount(pairs[:, 1], per_cell, len(theta))
    return loss, grad


def fit_bt(
    pairs: np.ndarray, outcomes: np.ndarray, weights: np.ndarray, n_models: int, base: float = BASE
) -> np.ndarray:
    """Bradley-Terry strengths (natural scale) by L-BFGS-B from zero, FastChat's stopping rule."""
    result = minimize(
        _bt_loss,
        np.zeros(n_models),
        args=(pairs, outcomes, weights, math.log(base)),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": BT_MAXITER, "gtol": BT_TOL},
    )
    return result.x


def bradley_terry(m: Matchups, base: float = BASE, scale: float = SCALE, init: float = INIT) -> np.ndarray:
    """Bradley-Terry ratings on the Elo scale (scale * strength + init) from all battles."""
    pairs, outcomes, counts = bt_cells(m)
    return fit_bt(pairs, outcomes, counts, len(m.models), base) * scale + init


def bootstrap_bt(
    m: Matchups, rounds: int, seed: int = 0, base: float = BASE, scale: float = SCALE, init: float = INIT
) -> np.ndarray:
    """(rounds, models) Bradley-Terry ratings, each round refit on the cell counts of ``len(m)`` battles
    drawn with replacement (a multinomial over the cells, ``numpy.random.default_rng(seed)``). A model
    drawn into no battle of a round keeps strength 0 there (rating ``init``), as in FastChat."""
    pairs, outcomes, counts = bt_cells(m)
    draws = np.random.default_rng(seed).multinomial(len(m), counts / counts.sum(), size=rounds)
    weights = draws.astype(np.float64) / len(m)
    return (
        np.array([fit_bt(pairs, outcomes, w, len(m.models), base) for w in weights]).reshape(rounds, len(m.models))
        * scale
        + init
    )


def intervals(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """2.5% and 97.5% quantiles per column (linear interpolation, as pandas' ``quantile``)."""
    return np.quantile(samples, 0.025, axis=0), np.quantile(samples, 0.975, axis=0)


def ci_ranks(lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """rank(i) = 1 + #{j != i : lower_j > upper_i} (FastChat's rank from intervals)."""
    above = lower[None, :] > upper[:, None]
    np.fill_diagonal(above, False)
    return 1 + above.sum(axis=1)


def battle_counts(m: Matchups) -> np.ndarray:
    """Battles per model, ties included (FastChat's ``num_battles``)."""
    return np.bincount(m.a, minlength=len(m.models)) + np.bincount(m.b, minlength=len(m.models))


def pair_counts(m: Matchups) -> np.ndarray:
    """(models, models) battles between each pair, either side, every outcome."""
    counts = np.zeros((len(m.models), len(m.models)), dtype=np.int64)
    np.add.at(counts, (m.a, m.b), 1)
    return counts + counts.T


def win_rates(m: Matchups) -> np.ndarray:
    """(models, models): battles row won against column / decisive battles between them (ties left out,
    as FastChat's ``compute_pairwise_win_fraction`` on ``battles_no_ties``); NaN where there are none."""
    n = len(m.models)
    wins = np.zeros((n, n))
    decisive = m.score != 0.5
    winner = np.where(m.score == 1.0, m.a, m.b)[decisive]
    loser = np.where(m.score == 1.0, m.b, m.a)[decisive]
    np.add.at(wins, (winner, loser), 1.0)
    total = wins + wins.T
    return np.divide(wins, total, out=np.full_like(wins, np.nan), where=total > 0)


def beat_groups(m: Matchups) -> list[list[str]]:
    """Models grouped so that within a group each has beaten (or tied) its way to every other: the strongly
    connected parts of the graph with an edge i -> j when i scored against j. With more than one group some
    group never lost a point to another, and the Bradley-Terry likelihood has no finite maximum (Zermelo's
    condition): the fitted ratings are where the optimiser stopped, not estimates."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = len(m.models)
    a_scored, b_scored = m.score > 0, m.score < 1
    rows = np.concatenate([m.a[a_scored], m.b[b_scored]])
    cols = np.concatenate([m.b[a_scored], m.a[b_scored]])
    graph = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    count, labels = connected_components(graph, directed=True, connection="strong")
    return [[m.models[j] for j in range(n) if labels[j] == group] for group in range(count)]
