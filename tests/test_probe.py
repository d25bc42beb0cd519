import json
import subprocess
import sys

import numpy as np
import pytest
from siq_data import REAL_SIQ2, needs_real_data, split_by_video

from desiq.formats import read_mcqa
from desiq.perturbations import PERTURBATIONS
from desiq.probe import debiased_rows, evaluate, run_probe
from desiq.probe_report import probe_markdown, write_probe_outputs
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


@pytest.mark.parametrize("probe", [name for name, entry in PROBES.items() if not entry.media])
def test_media_inputs_are_refused_by_text_probes(probe):
    with pytest.raises(ValueError, match="--probe fusion"):
        make_probe(probe).fit(sample_items("train"), "a+t", 0)


def test_a_new_perturbation_record_is_a_new_table_row(monkeypatch):
    """One record is all a perturbation needs: it is scored, and its row says what a sound dataset gives."""
    from desiq.perturbations import Direction, Perturbation, Pool, Target

    record = Perturbation("RIWX", Target.incorrect, Pool.partner_distractor, "riwx", Direction.original, "(test)")
    monkeypatch.setitem(PERTURBATIONS._entries, record.name, record)
    items = sample_items("val")
    report = run_probe(make_probe("tfidf-linear"), sample_items("train"), items, "a", seed=0)
    row = report.get("RIWX")
    assert row.n == len(items)
    assert f"| RIWX | {100 * report.get('RIWX', 'A2').accuracy:.2f}" in probe_markdown(report)
    assert "| about the original (test) |" in probe_markdown(report)


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
    assert cells == {(p, c) for p in ("original", "RIWI", "RIWA", "RAWI", "RAWA") for c in ("A4", "A2")}
    for r in data["results"]:
        assert set(r) >= {"perturbation", "config", "accuracy", "chance", "n", "ci95"}
        assert r["ci95"][0] <= r["accuracy"] <= r["ci95"][1]
    md = (tmp_path / "probe.md").read_text()
    assert "| setting | A2 | A4 |" in md and "| RAWA |" in md and "DeSIQ_d" in md
    assert (tmp_path / "tsne.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_readme_main_job_shows_bias_and_its_removal(tmp_path):
    run = subprocess.run([sys.executable, "-m", "desiq", "probe", "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    data = json.loads((tmp_path / "probe.json").read_text())
    acc = {(r["data"], r["perturbation"], r["config"]): r for r in data["results"]}
    original = acc["original", "original", "A4"]
    assert original["ci95"][0] > original["chance"]  # biased, beyond the interval
    assert acc["desiq_d", "original", "A4"]["accuracy"] < original["accuracy"] - 0.12
    assert "biased" in run.stdout
