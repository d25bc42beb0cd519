"""The rating formulas against FastChat's own functions (a small copy below, not the fschat package), an
independent maximum-likelihood fit, and known strengths; aggregation and chance levels by enumeration."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product

import numpy as np
import pandas as pd
import pytest
from arena_data import as_battles, simulate
from scipy.optimize import minimize
from scipy.special import expit

from mmsoc.arena import ratings
from mmsoc.arena.aggregate import aggregate, agreement, chance_full_agreement, chance_full_disagreement
from mmsoc.arena.records import LABELS, Battle, Vote

TRUE = {"m1": 1200.0, "m2": 1150.0, "m3": 1000.0, "m4": 980.0, "m5": 850.0}
WINNER = {"A": "model_a", "B": "model_b", "tie": "tie", "both_bad": "tie (bothbad)"}


# --- a copy of FastChat's functions (lm-sys/FastChat fastchat/serve/monitor/rating_systems.py, Apache-2.0),
# --- single-process, on a DataFrame with columns model_a, model_b, winner --------------------------------
def fc_get_matchups_models(df):
    n_rows = len(df)
    model_indices, models = pd.factorize(pd.concat([df["model_a"], df["model_b"]]))
    matchups = np.column_stack([model_indices[:n_rows], model_indices[n_rows:]])
    return matchups, models.to_list()


def fc_compute_elo(df, k=4.0, base=10.0, init_rating=1000.0, scale=400.0):
    matchups, models = fc_get_matchups_models(df)
    outcomes = np.full(len(df), 0.5)
    outcomes[df["winner"] == "model_a"] = 1.0
    outcomes[df["winner"] == "model_b"] = 0.0
    alpha = math.log(base) / scale
    ratings_ = np.full(shape=(len(models),), fill_value=init_rating)
    for (model_a_idx, model_b_idx), outcome in zip(matchups, outcomes):
        prob = 1.0 / (1.0 + math.exp(alpha * (ratings_[model_b_idx] - ratings_[model_a_idx])))
        update = k * (outcome - prob)
        ratings_[model_a_idx] += update
        ratings_[model_b_idx] -= update
    return {model: ratings_[idx] for idx, model in enumerate(models)}


def fc_preprocess_for_bt(df):
    schedule = np.full((len(df), 3), fill_value=1, dtype=np.int32)
    schedule[:, [0, 1]], models = fc_get_matchups_models(df)
    schedule[df["winner"] == "model_a", 2] = 2
    schedule[df["winner"] == "model_b", 2] = 0
    matchups_outcomes, weights = np.unique(schedule, return_counts=True, axis=0)
    return (
        matchups_outcomes[:, [0, 1]],
        matchups_outcomes[:, 2].astype(np.float64) / 2.0,
        models,
        weights.astype(np.float64),
    )


def fc_bt_loss_and_grad(ratings_, matchups, outcomes, weights, alpha=1.0):
    matchup_ratings = ratings_[matchups]
    probs = expit(alpha * (matchup_ratings[:, 0] - matchup_ratings[:, 1]))
    loss = -((np.log(probs) * outcomes + np.log(1.0 - probs) * (1.0 - outcomes)) * weights).sum()
    matchups_grads = -alpha * (outcomes - probs) * weights
    model_grad = np.zeros_like(ratings_)
    np.add.at(model_grad, matchups[:, [0, 1]], matchups_grads[:, None] * np.array([1.0, -1.0], dtype=np.float64))
    return loss, model_grad


def fc_fit_bt(matchups, outcomes, weights, n_models, alpha, tol=1e-6):
    result = minimize(
        fun=fc_bt_loss_and_grad,
        x0=np.zeros(n_models, dtype=np.float64),
        args=(matchups, outcomes, weights, alpha),
        jac=True,
        method="L-BFGS-B",
        options={"disp": False, "maxiter": 100, "gtol": tol},
    )
    return result["x"]


def fc_compute_bt(df, base=10.0, scale=400.0, init_rating=1000, tol=1e-6):
    matchups, outcomes, models, weights = fc_preprocess_for_bt(df)
    fitted = fc_fit_bt(matchups, outcomes, weights, len(models), math.log(base), tol)
    return pd.Series(fitted * scale + init_rating, index=models)


def fc_compute_bootstrap_bt(df, num_round, base=10.0, scale=400.0, init_rating=1000.0, tol=1e-6):
    matchups, outcomes, models, weights = fc_preprocess_for_bt(df)
    rng = np.random.default_rng(seed=0)
    idxs = rng.multinomial(n=len(df), pvals=weights / weights.sum(), size=(num_round))
    boot_weights = idxs.astype(np.float64) / len(df)
    results = [fc_fit_bt(matchups, outcomes, w, len(models), np.log(base), tol) for w in boot_weights]
    return pd.DataFrame(np.array(results) * scale + init_rating, columns=models)


# --- end of the copy ------------------------------------------------------------------------------------


def _df(triples) -> pd.DataFrame:
    return pd.DataFrame([(a, b, WINNER[label]) for a, b, label in triples], columns=["model_a", "model_b", "winner"])


@pytest.fixture(scope="module")
def triples():
    return simulate(TRUE, n=3000, seed=1)


def test_online_elo_equals_fastchat(triples):
    m = ratings.Matchups.of(triples)
    ours = dict(zip(m.models, ratings.online_elo(m)))
    theirs = fc_compute_elo(_df(triples))
    assert set(ours) == set(theirs)
    assert max(abs(ours[k] - theirs[k]) for k in ours) < 1e-6


def test_online_elo_hand_worked_first_steps():
    # battle 1: equal ratings, A wins: E = 0.5, update 4 * 0.5 = 2 -> 1002 / 998
    # battle 2: x (1002) vs y (998) tie: E_x = 1 / (1 + 10^(-4/400)), update 4 (0.5 - E_x)
    m = ratings.Matchups.of([("x", "y", "A"), ("x", "y", "both_bad")])
    e_x = 1 / (1 + 10 ** (-4 / 400))
    expected_x = 1002 + 4 * (0.5 - e_x)
    assert ratings.online_elo(m) == pytest.approx([expected_x, 2000 - expected_x], abs=1e-9)


def test_bradley_terry_equals_fastchat_and_an_independent_fit(triples):
    from sklearn.linear_model import LogisticRegression

    m = ratings.Matchups.of(triples)
    ours = ratings.bradley_terry(m)
    ours = dict(zip(m.models, ours - ours.mean()))
    theirs = fc_compute_bt(_df(triples))
    theirs = (theirs - theirs.mean()).to_dict()
    assert max(abs(ours[k] - theirs[k]) for k in ours) < 0.5
    # the older FastChat form: every battle twice, a tie once as an A win and once as a B win, unpenalised
    n, k = len(m), len(m.models)
    x = np.zeros((2 * n, k))
    rows = np.arange(2 * n)
    x[rows, np.concatenate([m.a, m.a])] = math.log(10)
    x[rows, np.concatenate([m.b, m.b])] = -math.log(10)
    y = np.concatenate([m.score >= 0.5, m.score == 1.0]).astype(int)
    coef = LogisticRegression(fit_intercept=False, C=np.inf, tol=1e-10, max_iter=10_000).fit(x, y).coef_[0]
    independent = 400 * (coef - coef.mean())
    assert max(abs(ours[name] - independent[j]) for j, name in enumerate(m.models)) < 0.5


def test_bootstrap_intervals_equal_fastchat(triples):
    m = ratings.Matchups.of(triples)
    lower, upper = ratings.intervals(ratings.bootstrap_bt(m, rounds=20, seed=0))
    theirs = fc_compute_bootstrap_bt(_df(triples), num_round=20)
    for j, name in enumerate(m.models):
        assert lower[j] == pytest.approx(theirs[name].quantile(0.025), abs=1e-6)
        assert upper[j] == pytest.approx(theirs[name].quantile(0.975), abs=1e-6)


def test_known_strengths_are_recovered():
    true = {"s1": 1300.0, "s2": 1150.0, "s3": 1000.0, "s4": 850.0, "s5": 700.0}
    m = ratings.Matchups.of(simulate(true, n=2000, seed=7, p_tie=0.0, p_both_bad=0.0))
    truth = sorted(true, key=true.get, reverse=True)
    bt, elo = ratings.bradley_terry(m), ratings.online_elo(m)
    assert [m.models[j] for j in np.argsort(-bt)] == truth
    assert [m.models[j] for j in np.argsort(-elo)] == truth
    # without ties the maximum-likelihood fit finds the simulated gaps
    centred = {name: bt[j] - bt.mean() for j, name in enumerate(m.models)}
    assert all(abs(centred[k] - (true[k] - 1000.0)) < 40 for k in true)
    lower, upper = ratings.intervals(ratings.bootstrap_bt(m, rounds=30, seed=0))
    assert all(lower[j] < bt[j] < upper[j] for j in range(len(m.models)))
    rank = dict(zip(m.models, ratings.ci_ranks(lower, upper)))
    assert [rank[k] for k in truth] == [1, 2, 3, 4, 5]


def test_rank_rule_counts_models_clearly_above():
    lower = np.array([10.0, 5.0, 4.0, -3.0])
    upper = np.array([20.0, 12.0, 9.0, 4.5])
    # model 1: only model 0's lower (10) is not above 12 -> 1; model 3: lowers 10, 5 above 4.5 -> 3
    assert ratings.ci_ranks(lower, upper).tolist() == [1, 1, 2, 3]


def test_win_rates_and_counts_hand_worked():
    m = ratings.Matchups.of([("x", "y", "A"), ("y", "x", "A"), ("x", "y", "tie"), ("x", "z", "B")])
    w = ratings.win_rates(m)
    x, y, z = (m.models.index(k) for k in "xyz")
    assert w[x, y] == 0.5 and w[y, x] == 0.5 and w[z, x] == 1.0 and w[x, z] == 0.0
    assert np.isnan(w[y, z]) and np.isnan(w[x, x])
    counts = ratings.pair_counts(m)
    assert counts[x, y] == 3 and counts[y, x] == 3 and counts[x, z] == 1
    assert dict(zip(m.models, ratings.battle_counts(m))) == {"x": 4, "y": 3, "z": 1}


def _enumerated(annotators: int) -> tuple[Fraction, Fraction]:
    combos = list(product(LABELS, repeat=annotators))
    same = sum(len(set(c)) == 1 for c in combos)
    differ = sum(len(set(c)) == annotators for c in combos)
    return Fraction(same, len(combos)), Fraction(differ, len(combos))


@pytest.mark.parametrize("annotators", [2, 3, 4, 5])
def test_chance_levels_equal_enumeration(annotators):
    same, differ = _enumerated(annotators)
    assert chance_full_agreement(annotators) == pytest.approx(float(same))
    assert chance_full_disagreement(annotators) == pytest.approx(float(differ))
    if annotators == 3:  # the paper's figures
        assert (same, differ) == (Fraction(1, 16), Fraction(3, 8))


def _battle(k: int, labels: list[str], times: list[float] | None = None) -> Battle:
    times = times or [100.0 + j for j in range(len(labels))]
    return Battle(
        f"b{k}",
        f"i{k}",
        "x",
        "y",
        "ra",
        "rb",
        votes=tuple(Vote(f"a{j}", label, "", t) for j, (label, t) in enumerate(zip(labels, times))),
    )


def test_majority_drops_and_counts_disagreement():
    battles = [
        _battle(0, ["A", "A", "B"]),
        _battle(1, ["A", "B", "tie"]),
        _battle(2, ["tie", "tie", "tie"]),
        _battle(3, ["A", "B"]),
        _battle(4, ["A", "A", "B", "B"]),
        _battle(5, ["both_bad", "A", "both_bad"]),
    ]
    agg = aggregate(battles, min_annotators=3)
    assert [(o.battle.id, o.label) for o in agg.outcomes] == [("b0", "A"), ("b2", "tie"), ("b5", "both_bad")]
    assert (agg.too_few, agg.all_disagree, agg.no_majority, agg.dropped) == (1, 1, 1, 2)
    figures = agreement(battles, min_annotators=3, rounds=50, seed=0)
    # five battles with >= 3 votes: one all same (b2), one all different (b1)
    assert figures["battles"] == 5
    assert figures["full_agreement"]["share"] == pytest.approx(1 / 5)
    assert figures["full_disagreement"]["share"] == pytest.approx(1 / 5)
    # chance: four 3-annotator battles and one 4-annotator battle
    assert figures["full_agreement"]["chance"] == pytest.approx((4 * 1 / 16 + 1 / 64) / 5)
    assert figures["full_disagreement"]["chance"] == pytest.approx((4 * 3 / 8 + 24 / 256) / 5)


def test_elo_order_is_first_vote_time_then_file_order():
    battles = [
        _battle(0, ["A"], [50.0]),
        _battle(1, ["B"], [10.0]),
        _battle(2, ["A"], [50.0]),
        _battle(3, ["tie", "tie"], [60.0, 70.0]),
    ]
    assert [o.battle.id for o in aggregate(battles, 1).outcomes] == ["b1", "b0", "b2", "b3"]
    battles[3] = _battle(3, ["tie", "tie"], [60.0, 5.0])  # its first vote (the earliest) now comes first
    assert [o.battle.id for o in aggregate(battles, 1).outcomes] == ["b3", "b1", "b0", "b2"]


def test_three_unanimous_annotators_rate_like_one(triples):
    one = aggregate(as_battles(triples[:300], annotators=1), 1)
    three = aggregate(as_battles(triples[:300], annotators=3), 3)
    assert [(o.battle.id, o.label) for o in one.outcomes] == [(o.battle.id, o.label) for o in three.outcomes]


def test_groups_that_never_lose_are_found():
    def groups(triples):
        return sorted(sorted(g) for g in ratings.beat_groups(ratings.Matchups.of(triples)))

    assert groups([("x", "y", "A"), ("y", "x", "B")]) == [["x"], ["y"]]  # x always wins: no finite MLE
    assert groups([("x", "y", "A"), ("y", "x", "B"), ("x", "y", "both_bad")]) == [["x", "y"]]
    assert groups([("x", "y", "A"), ("y", "z", "A"), ("z", "x", "A")]) == [["x", "y", "z"]]
    assert groups([("x", "y", "A"), ("y", "x", "A"), ("z", "x", "A"), ("y", "z", "B")]) == [["x", "y"], ["z"]]
    assert groups([("x", "y", "A"), ("y", "x", "A"), ("z", "x", "A"), ("y", "z", "tie")]) == [["x", "y", "z"]]
