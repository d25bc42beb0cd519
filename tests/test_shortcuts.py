"""The shortcut battery and ties counted as a share: each rule and each tie by hand, the rules kept to what
``--inputs`` shows, a planted shortcut found by its own rule, noise at chance, and the battery beside a
trained probe."""

from __future__ import annotations

import json

import numpy as np
import pytest
from planted_mcqa import planted_rows, write_planted
from typer.testing import CliRunner

from desiq.cli import app
from desiq.formats import read_mcqa
from desiq.probe_table import score_cell
from desiq.probes.heuristics import run_heuristics
from desiq.probes.shortcuts import SHORTCUTS, cross_fitted
from desiq.probes.ties import hit_share, tied
from desiq.records import MCQAItem, in_config
from mmsoc.metrics.verdict import ABOVE

OWN_RULE = {
    "longest": "longest",
    "position": "position_prior",
    "overlap": "question_overlap",
    "odd_one_out": "odd_one_out",
}
"""The battery's rule that finds each planted family."""
BATTERY = [s.name for s in SHORTCUTS]


def _item(n, question, options, answer, video="v"):
    return MCQAItem(f"q{n}", f"q{n}", video, question, tuple(options), answer, ("matched",) * len(options))


def _planted(tmp_path, family, strength, n=1000, k=4, seed=0):
    return read_mcqa(write_planted(tmp_path / f"{family}.jsonl", n, k, family, strength, seed), "mcqa")


def test_a_tie_is_a_share_of_a_hit():
    assert hit_share([0.3, 0.3], 0) == 0.5 and hit_share([0.3, 0.3], 1) == 0.5  # A2 tie: half
    assert hit_share([1, 2, 2, 2], 3) == pytest.approx(1 / 3)  # 3-way tie at the top in A4
    assert hit_share([1, 2, 2, 2], 0) == 0.0 and hit_share([5, 2, 2, 2], 0) == 1.0
    assert tied([1, 2, 2, 0]) and not tied([2, 1, 1, 1])


def test_each_rule_of_the_battery_by_hand():
    items = [
        # 13, 3, 7, 13 characters; 3, 1, 2, 3 words; the question shares "red car" with option 0, one word with
        # options 2 and 3; options 0, 2 and 3 share words, "yes" none
        _item(0, "Is the red car fast?", ["red car today", "yes", "car two", "red bike here"], 1),
        # 11, 11, 11, 5 characters; "zebra" shares nothing with the other three, which all hold "the"
        _item(1, "What now?", ["the cat sat", "the dog sat", "the cat ran", "zebra"], 3),
    ]
    report = run_heuristics(items, perturbations=False, variants=(), train=[items[1]] * 3 + [items[0]])
    expect = {
        "longest": 0.0,  # item 0: options 0 and 3 tie, item 1: options 0, 1 and 2 tie; never the answer
        "shortest": 1.0,  # "yes", "zebra"
        "longest_words": 0.0,
        "shortest_words": 1.0,
        "question_overlap": (0 + 1 / 4) / 2,  # item 0: option 0; item 1: a 4-way tie at 0 words
        "odd_one_out": 1.0,  # "yes" and "zebra" share no word with the others
        "most_central": 0.0,  # option 0 of both
        "position_prior": (0 + 1) / 2,  # three of the four training answers sit at index 3
    }
    for name, accuracy in expect.items():
        assert report.get(name).accuracy == pytest.approx(accuracy), name
    assert report.get("longest").ties == 2 and report.get("question_overlap").ties == 1
    # A2 pairs: a tied pair is half a hit; rules that compare three options or more, and the position prior,
    # are not scored on pairs
    pairs = {r.heuristic for r in report.results if r.config == "A2"}
    assert pairs == {"longest", "shortest", "longest_words", "shortest_words", "question_overlap"}
    # item 0's pairs (gold "yes", 3 characters) are all lost by longest, item 1's ("zebra", 5 against 11) too
    assert report.get("longest", config="A2").accuracy == 0.0
    # question_overlap in pairs: item 0's gold shares no word and loses its 3 pairs; item 1 ties its 3 at 0 words
    assert report.get("question_overlap", config="A2").accuracy == pytest.approx((0 + 3 / 2) / 6)


def test_the_position_prior_is_cross_fitted_by_group():
    # groups a and b answer at index 0, group c at index 2: without a training file, the prior of each group is
    # learnt from the others
    items = [_item(i, "q", ["w", "x", "y", "z"], 2 if video == "c" else 0, video) for i, video in enumerate("aabbcc")]
    prior = next(s for s in SHORTCUTS if s.name == "position_prior")
    scores = cross_fitted(prior, items)
    # each group is one fold: a and b learn from {0, 0, 2, 2} (0 and 2 tie: half a hit each), c from {0, 0, 0, 0}
    assert [int(np.argmax(s)) for s in scores if s is not None][4:] == [0, 0]
    report = run_heuristics(items, perturbations=False, variants=())
    assert report.get("position_prior").accuracy == pytest.approx((4 * 0.5 + 2 * 0) / 6)
    assert report.get("position_prior").ties == 4


def test_rules_read_only_what_the_inputs_show(tmp_path):
    items = _planted(tmp_path, "overlap", 0.3, n=100)
    options_only = run_heuristics(items, perturbations=False, variants=(), inputs="a")
    assert "question_overlap" not in {r.heuristic for r in options_only.results}
    assert "question_overlap" in options_only.to_json()["not_run"]
    with_question = run_heuristics(items, perturbations=False, variants=(), inputs="q+a")
    assert {r.heuristic for r in with_question.results} == set(BATTERY) - {"rewrite_nearest"}
    path = write_planted(tmp_path / "p.jsonl", 100, 4, None, 0.0, seed=1)
    out = tmp_path / "o"
    result = CliRunner().invoke(app, ["probe", "--probe", "heuristics", "--eval", str(path), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "question_overlap is not run" in result.output
    refused = CliRunner().invoke(
        app, ["probe", "--probe", "heuristics", "--eval", str(path), "--inputs", "a+t", "--out", str(out)]
    )
    assert refused.exit_code == 2 and "text only" in refused.output and "Traceback" not in refused.output


@pytest.mark.parametrize("family", list(OWN_RULE))
def test_a_planted_family_is_found_above_chance_by_its_own_rule(tmp_path, family):
    items = _planted(tmp_path, family, 0.3)
    row = run_heuristics(items, perturbations=False, variants=()).get(OWN_RULE[family])
    assert row.finding == ABOVE and row.verdict.startswith(ABOVE), row
    assert row.accuracy == pytest.approx(0.25 + 0.3 * 0.75, abs=0.03)


def test_noise_leaves_every_rule_near_chance_and_a_position_leaks_into_no_tie(tmp_path):
    noise = run_heuristics(_planted(tmp_path, None, 0.0), perturbations=False, variants=())
    for row in noise.results:
        assert abs(row.accuracy - row.chance) < 0.05, row
    # the correct option first in 62.5% of the questions: rules that mostly tie (no word in common with the
    # question) stay at chance, where "first on a tie" would follow the position
    rows = planted_rows(1000, 4, "position", 0.5, seed=3)
    first_wins = np.mean([r["answer_idx"] == 0 for r in rows])
    positioned = run_heuristics(_planted(tmp_path, "position", 0.5, seed=3), perturbations=False, variants=())
    overlap = positioned.get("question_overlap")
    assert overlap.ties > 0.9 * overlap.n and first_wins > 0.6
    assert abs(overlap.accuracy - 0.25) < 0.03


class _Flat:
    """A probe whose scores always tie: every option the same."""

    name = "flat"

    def score(self, items):
        return [np.zeros(len(item.options)) for item in items]


def test_a_probe_whose_scores_tie_keeps_the_strict_headline_and_counts_ties_as_a_share():
    items = [_item(i, "q", ["a", "b", "c", "d"], i % 2, f"v{i % 10}") for i in range(40)]
    a4 = score_cell(_Flat(), items, "A4", seed=0, name="original")
    # np.argmax picks index 0: right on the 20 questions answered at 0
    assert (a4.accuracy, a4.ties, a4.accuracy_shared) == (0.5, 40, pytest.approx(0.25))
    a2 = score_cell(_Flat(), in_config(items, "A2"), "A2", seed=0, name="original")
    assert (a2.accuracy, a2.ties, a2.accuracy_shared) == (0.0, 120, 0.5)


def test_every_probe_table_shows_the_battery_beside_the_trained_probe(tmp_path):
    train = write_planted(tmp_path / "train.jsonl", 300, 4, "position", 0.6, seed=1)
    test = write_planted(tmp_path / "eval.jsonl", 200, 4, "position", 0.6, seed=2)
    out = tmp_path / "p"
    args = ["probe", "--probe", "tfidf-linear", "--train", str(train), "--eval", str(test), "--no-tsne"]
    result = CliRunner().invoke(app, [*args, "--no-debiased", "--no-progress", "--out", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads((out / "probe.json").read_text())
    battery = data["shortcuts"]
    assert battery["train"] == str(train) and battery["inputs"] == "a"
    assert {r["heuristic"] for r in battery["results"]} == set(BATTERY) - {"question_overlap", "rewrite_nearest"}
    prior = next(
        r
        for r in battery["results"]
        if (r["heuristic"], r["perturbation"], r["config"]) == ("position_prior", "original", "A4")
    )
    gold = [json.loads(line)["answer_idx"] for line in test.read_text().splitlines()]
    assert prior["accuracy"] == pytest.approx(np.mean([g == 0 for g in gold]))  # the training file answers first most
    md = (out / "probe.md").read_text()
    assert "## The shortcut battery on the same questions" in md and "| position_prior | original | original |" in md


def test_desiq_list_probes_lists_every_rule_with_what_it_reads():
    result = CliRunner().invoke(app, ["list", "probes"])
    assert result.exit_code == 0, result.output
    for name in BATTERY:
        line = next(x for x in result.output.splitlines() if x.startswith(f"heuristics:{name} "))
        assert "(reads q+a)" in line if name == "question_overlap" else "(reads a)" in line
