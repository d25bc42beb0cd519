"""One verdict rule (``mmsoc.metrics.verdict``): findings with a minimum effect, family-wise control over a
table, the direction of every row against the original (``vs_original``), ``desiq probe --compare`` and the
circular rows of ``desiq eval``. Expected findings come from planted truths: sets with a shortcut of known
strength, and pure noise."""

from __future__ import annotations

import json

import numpy as np
import pytest
from planted_mcqa import write_planted
from typer.testing import CliRunner

from desiq.cli import app
from desiq.formats import read_mcqa
from desiq.llm.metrics import condition_result, run_metrics, verdict
from desiq.probe_table import debiased_rows, run_probe
from desiq.probe_verdicts import judge_rows
from desiq.probes import make_probe
from desiq.probes.heuristics import run_heuristics
from mmsoc.metrics.verdict import Estimate, effect_finding, judge, read_finding, resamples

CLAIMS = {"above chance", "below chance", "higher", "lower"}


def _items(tmp_path, name, n, k, family, strength, seed):
    return read_mcqa(write_planted(tmp_path / f"{name}.jsonl", n, k, family, strength, seed))


def test_findings_follow_the_rule_on_hand_worked_cases():
    # separated from chance 25% by 10 points: above; by 1 point: negligible (--min-effect 2); not separated: at chance
    assert effect_finding(0.35, 0.25, separated=True) == "above chance"
    assert effect_finding(0.15, 0.25, separated=True) == "below chance"
    assert effect_finding(0.26, 0.25, separated=True) == "negligible"
    assert effect_finding(0.26, 0.25, separated=True, min_effect=0.5) == "above chance"
    assert effect_finding(0.40, 0.25, separated=False) == "at chance"
    assert effect_finding(0.05, 0.0, separated=True, difference=True) == "higher"
    assert effect_finding(-0.05, 0.0, separated=True, difference=True) == "lower"
    assert effect_finding(-0.05, 0.0, separated=False, difference=True) == "same"
    # the DeSIQ_s A5 row: 20.80% [20.0, 21.6] against 20% is 0.8 points, negligible
    assert read_finding(0.208, 0.200001, 0.216, 0.2, 500) == "negligible"
    assert read_finding(0.208, 0.19, 0.216, 0.2, 500) == "at chance"
    assert read_finding(0.6, 0.5, 0.7, 0.25, 3) == "no verdict"  # too few clusters
    assert read_finding(0.6, float("nan"), 0.7, 0.25, 30) == "no verdict"


def test_holm_adjustment_is_the_step_down_worked_by_hand():
    rng = np.random.default_rng(0)
    videos = tuple(f"v{i // 2}" for i in range(120))
    strengths = (0.25, 0.30, 0.35, 0.45, 0.25)
    tests = [Estimate((rng.random(120) < s).astype(float), videos, 0.25) for s in strengths]
    judged = judge(tests)
    p = np.array([j.p for j in judged])
    order = np.argsort(p)
    m = len(p)
    by_hand = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        by_hand[i] = running
    np.testing.assert_allclose([j.p_adjusted for j in judged], by_hand)
    for j in judged:  # the adjusted interval is the wider, Bonferroni's
        assert j.ci_adjusted[0] <= j.ci95[0] and j.ci95[1] <= j.ci_adjusted[1]
    assert resamples(len(tests), 1000) >= 2 * 10 * len(tests) / 0.05  # ten draws beyond the smallest level's tail


def test_bootstrap_p_values_hold_their_level_on_noise():
    rng = np.random.default_rng(1)
    videos = tuple(f"v{i // 3}" for i in range(150))
    p = [judge([Estimate((rng.random(150) < 0.25).astype(float), videos, 0.25)])[0].p for _ in range(200)]
    assert 0.01 <= np.mean(np.array(p) < 0.05) <= 0.10


def test_a_planted_effect_is_found_and_a_tiny_one_is_negligible():
    videos = tuple(f"v{i // 5}" for i in range(20000))
    strong = Estimate(np.r_[np.ones(7000), np.zeros(13000)][np.random.default_rng(2).permutation(20000)], videos, 0.25)
    # 26.5%: 1.5 points above chance, five standard errors: separated, yet under --min-effect's 2 points
    tiny = Estimate(np.r_[np.ones(5300), np.zeros(14700)][np.random.default_rng(3).permutation(20000)], videos, 0.25)
    few = Estimate(np.ones(20), tuple(f"v{i // 5}" for i in range(20)), 0.25)  # four videos: no verdict
    found = judge([strong, tiny, few])
    assert [j.finding for j in found] == ["above chance", "negligible", "no verdict"]
    assert found[2].ci95 is None and found[2].p is None


def _claims(rows) -> bool:
    """Whether a judged table holds any claim: against chance, or a difference from the original."""
    found = {r.finding for r in rows}
    found |= {r.judgement.vs_original.finding for r in rows if r.judgement and r.judgement.vs_original}
    return bool(found & CLAIMS)


def test_shortcut_tables_on_pure_noise_claim_nothing_family_wise(tmp_path):
    """Twenty noise sets (4 options, random words, a random gold; 5 questions a group): at most three of
    their shortcut tables (every heuristic, perturbation and rebuild, and each against the original) may
    hold any claim."""
    claims = 0
    for seed in range(20):
        items = _items(tmp_path, f"noise{seed}", 300, 4, None, 0.0, seed)
        claims += _claims(judge_rows(run_heuristics(items, seed=seed).results, seed))
    assert claims <= 3


@pytest.mark.slow
def test_probe_tables_on_pure_noise_claim_nothing_family_wise(tmp_path):
    """The same with the tfidf probe on question and options, trained on another noise set."""
    claims = 0
    for seed in range(20):
        train = _items(tmp_path, f"train{seed}", 300, 4, None, 0.0, 100 + seed)
        held = _items(tmp_path, f"eval{seed}", 200, 4, None, 0.0, seed)
        backend = make_probe("tfidf-linear")
        report = run_probe(backend, train, held, "q+a", seed=seed, progress=False)
        report.results += debiased_rows(backend, train, held, "q+a", seed=seed, progress=False)
        claims += _claims(judge_rows(report.results, seed))
    assert claims <= 3


def test_a_planted_shortcut_is_found_and_a_rebuild_that_plants_one_is_higher(tmp_path):
    """Question overlap planted at s = 0.3 on 600 questions (chance 25%: the rule is right on 47.5%): the
    table finds it above chance; DeSIQ_d draws every distractor from another group's answers, which share no
    word with the question: where the rule missed, it now ties (a quarter of a hit), so the rebuild raises it:
    ``vs_original`` says higher."""
    items = _items(tmp_path, "overlap", 600, 4, "overlap", 0.3, 0)
    rows = judge_rows(run_heuristics(items, seed=0, perturbations=False, variants=("d",)).results, 0)
    by = {(r.heuristic, r.config, r.data): r for r in rows}
    original, rebuilt = by["question_overlap", "A4", "original"], by["question_overlap", "A4", "desiq_d"]
    assert original.finding == "above chance" and 0.42 <= original.accuracy <= 0.53
    assert rebuilt.judgement.vs_original.finding == "higher" and rebuilt.accuracy > original.accuracy + 0.05
    assert rebuilt.judgement.vs_original.questions == len(items)
    assert by["longest", "A4", "original"].finding in ("at chance", "negligible")


def test_compare_scores_another_version_and_says_which_way_it_moves(tmp_path):
    """``desiq probe --compare``: the eval file against a version of half its questions whose correct option
    was made the longest (a shortcut planted in the version): every row of the version is matched by
    question, and the longest-option rule is higher there."""
    runner = CliRunner()
    eval_path = write_planted(tmp_path / "eval.jsonl", 400, 4, None, 0.0, 5)
    rows = [json.loads(line) for line in eval_path.read_text().splitlines()]
    version = []
    for row in rows[::2]:
        gold = row["answer_idx"]
        choices = list(row["choices"])
        choices[gold] = choices[gold] + " " + "x" * 40
        version.append({**row, "choices": choices})
    other = tmp_path / "longer.jsonl"
    other.write_text("".join(json.dumps(r) + "\n" for r in version))
    out = tmp_path / "out"
    result = runner.invoke(
        app,
        ["probe", "--probe", "heuristics", "--eval", str(eval_path), "--compare", str(other), "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    data = json.loads((out / "probe.json").read_text())
    longest = next(
        r for r in data["results"] if (r["heuristic"], r["config"], r["data"]) == ("longest", "A4", str(other))
    )
    assert longest["accuracy"] == 1.0 and longest["vs_original"]["questions"] == 200
    assert longest["vs_original"]["finding"] == "higher" and longest["vs_original"]["difference"] > 0.5
    assert {"ci95", "ci_adjusted", "finding", "verdict", "p_adjusted"} <= set(longest)
    assert "raises blind accuracy" in (out / "probe.md").read_text() or "| longest |" in (out / "probe.md").read_text()


def _circular_rows(pick, n: int = 40) -> list[dict]:
    """A circular condition on ``n`` questions of ``n`` videos; ``pick(question, rotation, gold)`` chooses."""
    rows = []
    for q in range(n):
        for r in range(4):
            gold = (q - r) % 4  # the gold option moves one slot back with each rotation
            rows.append(
                {
                    "id": f"q{q}",
                    "vid_name": f"v{q}",
                    "condition": "circular",
                    "config": "A4",
                    "rotation": r,
                    "options": ["a", "b", "c", "d"],
                    "gold": gold,
                    "chosen": pick(q, r, gold),
                    "chosen_norm": pick(q, r, gold),
                    "missing": [],
                }
            )
    return rows


def test_circular_rows_report_position_consistency_and_no_chance_verdict():
    rng = np.random.default_rng(0)
    # a model that always picks the first slot: right once in four passes, never circularly; its pick never
    # follows the rotation
    first = condition_result(_circular_rows(lambda q, r, gold: 0), "circular", "A4", "loglik", "lenient", 0)
    consistency = first["position_consistency"]
    assert consistency["single_pass"] == pytest.approx(0.25) and consistency["circular"] == 0.0
    assert consistency["same_slot"] == 1.0 and consistency["same_option"] == 0.0
    assert consistency["follows_rotation"] is None  # the pick never moves: nothing to test
    assert verdict(first).startswith("no chance verdict")
    # a model that reads the options follows them round
    reader = condition_result(_circular_rows(lambda q, r, gold: gold), "circular", "A4", "loglik", "lenient", 0)
    assert reader["position_consistency"]["follows_rotation"] is True
    assert reader["position_consistency"]["circular"] == 1.0 and reader["position_consistency"]["same_option"] == 1.0
    # random answers: a zero-width interval at 0% never reads "below chance"
    noise = _circular_rows(lambda q, r, gold: int(rng.integers(4)))
    metrics = run_metrics(noise, ["circular"], "loglik", "lenient", 0, {"model": "random", "inputs": "a"})
    (entry,) = metrics["results"]
    assert entry["finding"] == "no verdict" and "below chance" not in verdict(entry)
    assert entry["position_consistency"]["follows_rotation"] is False
