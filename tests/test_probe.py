import json
import subprocess
import sys

import numpy as np
import pytest
from siq_data import REAL_SIQ2, needs_real_data, split_by_video

from desiq.formats import read_mcqa
from desiq.perturbations import PERTURBATIONS
from desiq.probe_report import probe_markdown, write_probe_outputs
from desiq.probe_table import debiased_rows, evaluate, run_probe
from desiq.probes import PROBES, make_probe
from desiq.sample import sample_items
from mmsoc.metrics.bootstrap import cluster_bootstrap_ci


@pytest.fixture(scope="module")
def real_split():
    items = read_mcqa(REAL_SIQ2)
    train, held = split_by_video(items)
    return train[:2500], held[:800]


def _table(report):
    return {(r.data, r.perturbation, r.config): r.accuracy for r in report.results}


@needs_real_data
@pytest.mark.parametrize("probe", ["tfidf-linear", "embed-linear"])
def test_answer_only_probe_exposes_the_real_social_iq_bias(real_split, probe):
    train, held = real_split
    backend = make_probe(probe)
    report = run_probe(backend, train, held, "a", seed=0)
    report.results += debiased_rows(backend, train, held, "a", seed=0)
    acc = _table(report)
    original = acc["original", "original", "A4"]
    assert original >= 0.42 and report.get("original").ci95[0] > 0.30  # far above chance (0.25)
    assert acc["original", "original", "A2"] >= 0.68
    for kind in ("RIWA", "RAWI"):  # the correct answer no longer stands out
        assert acc["original", kind, "A4"] <= 0.32
        assert acc["original", kind, "A2"] <= 0.56
    for kind in ("RIWI", "RAWA"):  # distractors from elsewhere are as easy to reject
        assert acc["original", kind, "A4"] >= original - 0.08
    assert acc["desiq_d", "original", "A4"] <= 0.32
    assert acc["desiq_d", "original", "A2"] <= 0.56


def test_question_and_answer_probe_adds_ncaq_row():
    backend = make_probe("tfidf-linear")
    val = sample_items("val")
    report = run_probe(backend, sample_items("train"), val, "q+a", seed=0)
    assert [r.perturbation for r in report.results if r.config == "A4"] == ["original", *PERTURBATIONS.names()]
    assert all(r.n == len(val) for r in report.results if r.config == "A4")
    n_pairs = sum(len(item.options) - 1 for item in val)  # one A2 pair per incorrect option
    assert all(r.n == n_pairs for r in report.results if r.config == "A2")
    assert {r.inputs for r in report.results if r.perturbation == "NCAQ"} == {"a"}
    assert {r.inputs for r in report.results if r.perturbation != "NCAQ"} == {"q+a"}


@pytest.mark.parametrize("probe", [name for name, entry in PROBES.items() if not entry.media and entry.trains])
def test_media_inputs_are_refused_by_text_probes(probe):
    with pytest.raises(ValueError, match="--probe fusion"):
        make_probe(probe).fit(sample_items("train"), "a+t", 0)


def test_a_new_perturbation_record_is_a_new_table_row(monkeypatch):
    """One record is all a perturbation needs: it is scored, and its row says what a sound dataset gives."""
    from desiq.perturbations import Direction, Pool, Target, from_partner

    record = from_partner(
        "RIWX", Target.incorrect, Pool.partner_distractor, "riwx", Direction.original, Direction.original, "test"
    )
    monkeypatch.setitem(PERTURBATIONS._entries, record.name, record)
    items = sample_items("val")
    report = run_probe(make_probe("tfidf-linear"), sample_items("train"), items, "a", seed=0)
    row = report.get("RIWX")
    assert row.n == len(items)
    assert f"| RIWX | {100 * report.get('RIWX', 'A2').accuracy:.2f}" in probe_markdown(report)
    assert "| about the original (test) | about the original |" in probe_markdown(report)


def test_accuracy_and_chance_of_one_cell_by_hand():
    items = sample_items("val")[:12]

    class LongestOption:
        name = "longest"

        def score(self, batch):
            return [np.array([len(o) for o in item.options], float) for item in batch]

    row = evaluate(LongestOption(), items, "original", "A4", seed=0)
    expected = np.mean([int(np.argmax([len(o) for o in i.options])) == i.answer_idx for i in items])
    assert row.accuracy == pytest.approx(expected) and row.chance == 0.25 and row.n == 12
    assert row.ci95[0] <= row.accuracy <= row.ci95[1]


def test_bootstrap_resamples_whole_videos():
    # two videos, one always right, one always wrong: any resample is a mix of whole videos,
    # so the interval's ends are among {0, 1/3, 1/2, 2/3, 1} weighted by video sizes
    correct = [1, 1, 0, 0, 0, 0]
    videos = ["a", "a", "b", "b", "b", "b"]
    low, high = cluster_bootstrap_ci(correct, videos, n_boot=2000, seed=1)
    assert low == pytest.approx(0.0) and high == pytest.approx(1.0)
    # resampling the 2 videos: {a,a} -> 1 (p 1/4), {a,b} -> 2/6 (p 1/2), {b,b} -> 0 (p 1/4), so the
    # 30% and 70% quantiles are both 1/3; resampling the 6 questions would give 1/6 and 3/6
    assert cluster_bootstrap_ci(correct, videos, n_boot=2000, seed=1, level=0.4) == pytest.approx((1 / 3, 1 / 3))
    same = cluster_bootstrap_ci([1, 0, 1, 0], ["a", "b", "c", "d"], seed=1)
    assert same == cluster_bootstrap_ci([1, 0, 1, 0], ["a", "b", "c", "d"], seed=1)


def test_t5_probe_trains_a_tiny_t5(tmp_path):
    from media_fixtures import build_tiny_t5

    train, held = sample_items("train"), sample_items("val")
    corpus = [t for i in train + held for t in (i.question, *i.options)] + ["question:", "answer:"]
    folder = build_tiny_t5(tmp_path / "t5", corpus)
    backend = make_probe("t5", backbone=str(folder), epochs=6, lr=1e-3, progress=False)
    report = run_probe(backend, train, held, "a", seed=0)
    # the sample's answer-only bias is learnable by a 2-layer T5 from scratch
    assert report.get("original").accuracy > 0.40
    assert report.get("RIWA").accuracy < report.get("original").accuracy
    assert backend.scorer.config.inputs == "a" and not backend.scorer.model.feature_dims  # the fusion scorer, no media
    again = make_probe("t5", backbone=str(folder), epochs=6, lr=1e-3, progress=False)
    again.fit(train, "a", 0)
    np.testing.assert_allclose(np.concatenate(backend.score(held)), np.concatenate(again.score(held)), rtol=1e-5)


def test_probe_outputs_follow_the_contract(tmp_path):
    backend = make_probe("tfidf-linear")
    report = run_probe(backend, sample_items("train"), sample_items("val"), "a", seed=0)
    report.results += debiased_rows(backend, sample_items("train"), sample_items("val"), "a", seed=0)
    write_probe_outputs(report, tmp_path, backend, sample_items("val"))
    data = json.loads((tmp_path / "probe.json").read_text())
    assert data["inputs"] == "a" and data["probe"] == "tfidf-linear"
    cells = {(r["perturbation"], r["config"]) for r in data["results"] if r["data"] == "original"}
    assert cells == {(p, c) for p in ("original", "RIWI", "RIWA", "RAWI", "RAWA", "SHUF") for c in ("A4", "A2")}
    for r in data["results"]:
        assert set(r) >= {"perturbation", "config", "accuracy", "chance", "n", "ci95"}
        assert r["ci95"][0] <= r["accuracy"] <= r["ci95"][1]
    md = (tmp_path / "probe.md").read_text()
    assert "| setting | A2 | A4 | verdict A2 | verdict A4 |" in md and "| RAWA |" in md
    assert "| DeSIQ_d (retrained) |" in md and "| DeSIQ_s (retrained) |" in md
    assert {r["data"] for r in data["results"]} == {"original", "desiq_d", "desiq_s"}
    assert all(
        r["verdict"].split(":")[0] in ("above chance", "at chance", "negligible", "below chance")
        for r in data["results"]
    )
    assert (tmp_path / "tsne.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_readme_main_job_shows_bias_and_its_removal(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "desiq", "probe", "--out", str(tmp_path)], capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr
    data = json.loads((tmp_path / "probe.json").read_text())
    acc = {(r["data"], r["perturbation"], r["config"]): r for r in data["results"]}
    original = acc["original", "original", "A4"]
    assert original["ci95"][0] > original["chance"]  # biased, beyond the interval
    assert acc["desiq_d", "original", "A4"]["accuracy"] < original["accuracy"] - 0.12
    assert "biased" in run.stdout


class Spy:
    """Scores every option 0 and records what each fit saw."""

    name = "spy"

    def __init__(self):
        self.fits = []

    def fit(self, items, inputs, seed):
        self.fits.append((inputs, len(items), {len(x.options) for x in items}))

    def score(self, items):
        return [np.zeros(len(x.options)) for x in items]


def test_ncaq_is_a_probe_trained_and_tested_on_the_options_only():
    train, val = sample_items("train"), sample_items("val")
    spy = Spy()
    run_probe(spy, train, val, "q+a", seed=0)
    # NCAQ A4 and A2 probes see the options only; the A4 probe of the original row is fitted last
    assert spy.fits == [
        ("a", len(train), {4}),
        ("a", 3 * len(train), {2}),
        ("q+a", 3 * len(train), {2}),
        ("q+a", len(train), {4}),
    ]
    with_question = run_probe(make_probe("tfidf-linear"), train, val, "q+a", seed=0)
    options_only = run_probe(make_probe("tfidf-linear"), train, val, "a", seed=0)
    for config in ("A4", "A2"):
        ncaq, reference = with_question.get("NCAQ", config), options_only.get("original", config)
        assert (ncaq.accuracy, ncaq.ci95, ncaq.n) == (reference.accuracy, reference.ci95, reference.n)
    assert "NCAQ" not in {r.perturbation for r in options_only.results}  # there the original row is NCAQ
    assert "| original (= NCAQ: options only) |" in probe_markdown(options_only)
    assert "| NCAQ (probe retrained on options only) |" in probe_markdown(with_question)
    with pytest.raises(ValueError, match="options only"):
        evaluate(make_probe("tfidf-linear"), val, "NCAQ", "A4", seed=0)


def test_a2_counts_ties_as_wrong_and_a4_takes_the_first_top_option():
    val = sample_items("val")
    report = run_probe(Spy(), sample_items("train"), val, "a", seed=0)
    # hand-worked: every option scores 0, so A4 picks option 0 (np.argmax) and no A2 pair is strictly won
    assert report.get("original", "A4").accuracy == pytest.approx(np.mean([x.answer_idx == 0 for x in val]))
    assert all(r.accuracy == 0.0 for r in report.results if r.config == "A2")


def test_a2_rows_come_from_a_probe_trained_on_pairs():
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    from desiq.records import to_a2

    train, val = sample_items("train"), sample_items("val")
    report = run_probe(make_probe("tfidf-linear"), train, val, "a", seed=0)
    pairs, held = to_a2(train), to_a2(val)
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True)
    vectorizer.fit([o for x in pairs for o in x.options])
    labels = [k == x.answer_idx for x in pairs for k in range(2)]
    model = LogisticRegression(C=4.0, max_iter=2000, random_state=0)
    model.fit(vectorizer.transform([o for x in pairs for o in x.options]), labels)
    scores = model.decision_function(vectorizer.transform([o for x in held for o in x.options])).reshape(-1, 2)
    strict = [s[x.answer_idx] > s[1 - x.answer_idx] for s, x in zip(scores, held)]
    assert report.get("original", "A2").accuracy == pytest.approx(np.mean(strict))


def test_expected_direction_is_what_the_paper_found():
    """Table 3 of the paper (T5-small, v1 dev, A2 / A4) against the original 100% and chance 50% / 25%:
    RIWI and RAWA stay near the original, RIWA and RAWI fall to chance."""
    found = {"RIWI": (97.37, 99.97), "RIWA": (50.21, 25.03), "RAWI": (49.93, 23.76), "RAWA": (97.25, 100.0)}
    for name, (a2, a4) in found.items():
        near_chance = abs(a2 - 50) < 3 and abs(a4 - 25) < 3
        direction = "about the original" if min(a2, a4) > 90 else "chance" if near_chance else "?"
        assert PERTURBATIONS[name].bias.value == direction
        assert PERTURBATIONS[name].expected.startswith(direction) and f"{a2}%" in PERTURBATIONS[name].expected
    # what the paper expects of a sound dataset (section 2): RIWI and RIWA as the original, RAWI and RAWA worse
    assert [PERTURBATIONS[n].sound.value for n in found] == [
        "about the original",
        "about the original",
        "chance",
        "chance",
    ]
    md = probe_markdown(run_probe(make_probe("tfidf-linear"), sample_items("train"), sample_items("val"), "a"))
    for name in found:
        row = next(line for line in md.splitlines() if line.startswith(f"| {name} |"))
        assert row.split(" | ")[7].startswith(PERTURBATIONS[name].bias.value)


def test_verdicts_come_from_the_interval_never_from_the_row_name():
    from desiq.probe_table import ProbeRow

    row = ProbeRow("RIWA", "A4", 0.40, 0.25, 100, (0.31, 0.49), videos=40)
    assert row.verdict == "above chance: [31.0, 49.0] excludes 25%"
    row = ProbeRow("RIWI", "A4", 0.27, 0.25, 100, (0.20, 0.35), videos=40)
    assert row.verdict == "at chance: [20.0, 35.0] includes 25%"
    row = ProbeRow("x", "A2", 0.30, 0.50, 100, (0.22, 0.41), videos=40)
    assert row.verdict == "below chance: [22.0, 41.0] excludes 50%"
    row = ProbeRow("x", "A3", 0.50, 1 / 3, 100, (0.40, 0.60), videos=40)
    assert row.verdict == "above chance: [40.0, 60.0] excludes 33.3%"
    assert ProbeRow("x", "A4", 0.50, 0.25, 9, (0.40, 0.60), videos=3).verdict == (
        "too few videos to tell (3 videos), at least 10 needed"
    )
    train, val = sample_items("train"), sample_items("val")
    backend = make_probe("tfidf-linear")
    report = run_probe(backend, train, val, "q+a", seed=0)
    report.results += debiased_rows(backend, train, val, "q+a", seed=0)
    md = probe_markdown(report)
    for data in ("desiq_d", "desiq_s"):  # both splits, side by side, each with its own verdict
        for config in ("A4", "A2"):
            row = report.get("original", config, data)
            assert row.verdict in md
            assert row.verdict.startswith("above chance") == (row.ci95[0] > row.chance)
    # on the sample, question words give the answer away on DeSIQ_d: the table must say so
    assert report.get("original", "A4", "desiq_d").ci95[0] > 0.25
    assert "A4: above chance" in next(line for line in md.splitlines() if line.startswith("DeSIQ_d"))


@needs_real_data
def test_question_and_answer_probe_stays_above_chance_on_both_real_desiq_splits():
    """SPEC: a TF-IDF q+a logistic regression on the real training questions split 80/20 by video scores 39.7% on
    DeSIQ_d and 36.7% on DeSIQ_s (chance 25%); the table must call both above chance. Our probe adds the
    question-option word overlap as features, so it matches question and answer at least as well (62.2% and
    49.6% at seed 0)."""
    train, held = split_by_video(read_mcqa(REAL_SIQ2))
    backend = make_probe("tfidf-linear")
    report = run_probe(backend, train, held, "q+a", seed=0)
    report.results += debiased_rows(backend, train, held, "q+a", seed=0)
    md = probe_markdown(report)
    for data, name, spec in (("desiq_d", "DeSIQ_d", 0.397), ("desiq_s", "DeSIQ_s", 0.367)):
        row = report.get("original", "A4", data)
        assert row.accuracy >= spec - 0.03 and row.verdict.startswith("above chance")
        assert "A4: above chance" in next(line for line in md.splitlines() if line.startswith(name))
