"""``desiq probe --probe heuristics``: answer-only shortcuts without training, by hand on small cases, through
the command's contract, and on the real Social-IQ 2.0 training questions (SPEC figures)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from siq_data import REAL_SIQ2, needs_real_data
from typer.testing import CliRunner

from desiq.cli import app
from desiq.formats import read_mcqa
from desiq.formats.siq2 import write_siq2
from desiq.probes.heuristics import run_heuristics
from desiq.records import MCQAItem
from desiq.sample import sample_items
from mmsoc.metrics.bootstrap import cluster_bootstrap_ci

MARKERS = ("corr", "rewrite", "matched", "matched")


def _item(k, question, options, answer, video="v", markers=MARKERS):
    return MCQAItem(f"q{k}@{k}", f"q{k}", video, question, tuple(options), answer, markers)


def test_each_rule_by_hand():
    items = [
        # longest: option 0 (right); overlap: "dog" and "bark" -> option 0 (right); rewrite "she is not happy"
        # shares no word with the other three: a 3-way tie, a third of a hit
        _item(0, "Why does the dog bark?", ["The dog barks at the mailman", "she is not happy", "No.", "Yes."], 0),
        # longest: option 1 (wrong); overlap ties at 0 among 4 -> a quarter of a hit; rewrite: option 1 is the
        # rewrite; Jaccard to "a b c d": option 0 {a b c} 3/4, option 2 {a b} 2/4 -> option 0 (right)
        _item(1, "Who?", ["a b c", "a b c d e f", "a b", "x"], 0, markers=("corr", "rewrite", "matched", "matched")),
        # no rewrite in idx_types: rewrite_nearest does not apply
        _item(2, "What?", ["long long answer", "what", "b", "c"], 1, "w", ("matched", "corr", "matched", "matched")),
    ]
    report = run_heuristics(items, seed=0, perturbations=False, variants=())
    assert report.get("longest").accuracy == pytest.approx(1 / 3) and report.get("longest").n == 3
    assert report.get("question_overlap").accuracy == pytest.approx((1 + 1 / 4 + 1) / 3)
    assert report.get("question_overlap").ties == 1
    rewrite = report.get("rewrite_nearest")
    assert (rewrite.accuracy, rewrite.n, rewrite.ties) == (pytest.approx((1 / 3 + 1) / 2), 2, 1)
    hits = [1, 0, 0]
    assert report.get("longest").ci95 == cluster_bootstrap_ci(hits, ["v", "v", "w"], seed=0)
    # A2: a tied pair is half a hit; rewrite_nearest is A4 only. Overlap in pairs: item 0 wins its 3 pairs,
    # item 1 ties its 3 (0 words each), item 2 wins its 3 ("what")
    assert report.get("question_overlap", config="A2").n == 9
    assert report.get("question_overlap", config="A2").accuracy == pytest.approx((3 + 3 / 2 + 3) / 9)
    assert not [r for r in report.results if r.heuristic == "rewrite_nearest" and r.config == "A2"]


def test_command_contract(tmp_path):
    qa = tmp_path / "val.jsonl"
    write_siq2(qa, sample_items("val"))
    out = tmp_path / "o"
    args = ["probe", "--probe", "heuristics", "--eval", str(qa), "--inputs", "q+a", "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "o" / "probe.json").read_text())
    assert data["probe"] == "heuristics"
    keys = {"heuristic", "perturbation", "config", "accuracy", "chance", "n", "ci95"}
    assert all(keys <= r.keys() and r["ci95"][0] <= r["accuracy"] <= r["ci95"][1] for r in data["results"])
    cells = {(r["data"], r["heuristic"], r["perturbation"], r["config"]) for r in data["results"]}
    for p in ("original", "RIWI", "RIWA", "RAWI", "RAWA"):
        for config in ("A4", "A2"):
            assert ("original", "longest", p, config) in cells and ("original", "question_overlap", p, config) in cells
    for data_name in ("desiq_d", "desiq_s"):
        assert (data_name, "longest", "original", "A4") in cells
    assert ("original", "rewrite_nearest", "original", "A4") in cells
    # RIWI / RIWA replace the rewrite itself, so the rule no longer applies there
    assert ("original", "rewrite_nearest", "RIWA", "A4") not in cells
    assert (tmp_path / "o" / "probe.md").read_text().startswith("# Answer-only shortcuts")


def _words(text):
    return set(re.findall(r"[\w']+", text.lower()))


@needs_real_data
def test_real_figures_of_the_spec():
    """SPEC: on the real training questions, longest 35.4%, question overlap 21.1%, rewrite-nearest 60.3%.

    The SPEC's figures decide ties by the first option (``np.argmax``), re-written here from the rules'
    definitions; desiq counts a tie among t options as 1/t of a hit, which the same rules re-written with
    that count give. The rewrite figure of the SPEC is the same rule with the last tied option winning (60.3%
    against 60.0%)."""
    items = read_mcqa(REAL_SIQ2)
    report = run_heuristics(items, seed=0)

    def overlap_scores(item):
        return np.array([len(_words(item.question) & _words(o)) for o in item.options])

    for name, rule in (
        ("longest", lambda x: np.array([len(o) for o in x.options])),
        ("question_overlap", overlap_scores),
    ):
        first = np.mean([int(np.argmax(rule(x))) == x.answer_idx for x in items])
        shares = [(rule(x)[x.answer_idx] == rule(x).max()) / (rule(x) == rule(x).max()).sum() for x in items]
        assert round(100 * first, 1) == {"longest": 35.4, "question_overlap": 21.1}[name]
        assert report.get(name).accuracy == pytest.approx(np.mean(shares))

    def rewrite_scores(item):
        r = item.option_markers.index("rewrite")
        base = _words(item.options[r])
        return np.array(
            [-1.0 if k == r else len(base & _words(o)) / len(base | _words(o)) for k, o in enumerate(item.options)]
        )

    first = np.mean([int(np.argmax(rewrite_scores(x))) == x.answer_idx for x in items])
    last = np.mean([len(s) - 1 - int(np.argmax(s[::-1])) == x.answer_idx for x in items for s in [rewrite_scores(x)]])
    shared = np.mean([(s[x.answer_idx] == s.max()) / (s == s.max()).sum() for x in items for s in [rewrite_scores(x)]])
    assert report.get("rewrite_nearest").accuracy == pytest.approx(shared)
    assert round(100 * last, 1) == 60.3 and abs(100 * first - 60.3) < 0.5
    assert report.get("rewrite_nearest").verdict.startswith("above chance")
