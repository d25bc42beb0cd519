"""Per-item blind flags (``desiq probe --per-item``), the blind-proof subset (``desiq subset``) and a run's
accuracy on it beside the full set (``desiq table --subset``)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from siq_data import REAL_SIQ2, needs_real_data
from typer.testing import CliRunner

from desiq.cli import app
from desiq.formats import read_mcqa
from desiq.per_item import cross_fit, cross_fitted_accuracy, heuristic_flags, per_item_rows
from desiq.probes import make_probe
from desiq.records import MCQAItem
from desiq.sample import sample_items, write_sample
from desiq.subset import Settings, choose, write_subset


def desiq(*args: object, code: int = 0):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == code, result.output
    return result


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


class RecordingProbe:
    """A probe that remembers the videos it was fitted on and scores the first option highest."""

    name = "recording"

    def __init__(self) -> None:
        self.fits: list[set[str]] = []
        self.scored: list[tuple[set[str], list[str]]] = []

    def fit(self, items, inputs, seed):
        self.fits.append({item.video for item in items})

    def score(self, items):
        self.scored.append((self.fits[-1], [item.id for item in items]))
        return [np.array([1.0] + [0.0] * (len(item.options) - 1)) for item in items]

    def option_features(self, items):
        raise NotImplementedError


def test_each_question_is_scored_once_by_a_probe_that_never_saw_its_video():
    items, train = sample_items("val"), sample_items("train")
    probe = RecordingProbe()
    scores = cross_fit(probe, items, "a", folds=5, extra_train=train)
    assert len(probe.fits) == 5 and len(scores) == len(items)
    by_id = {item.id: item for item in items}
    scored = [i for _, ids in probe.scored for i in ids]
    assert sorted(scored) == sorted(by_id)  # every question once
    for seen, ids in probe.scored:
        assert not seen & {by_id[i].video for i in ids}  # never its own video, from either file
        assert seen & {item.video for item in train}  # the training file's other videos are used


def test_shortcut_flags_of_a_hand_made_question():
    item = MCQAItem(
        "q@0",
        "q",
        "v",
        "Why does the man smile at the dog?",
        ("He is sad.", "The man likes the dog a lot.", "He smiles at the dog.", "Because of the weather today."),
        1,
        ("matched", "corr", "rewrite", "matched"),
    )
    # longest: option 3 (29 characters, against 28) is wrong; question overlap: options 1 (the, man, dog) and
    # 2 (at, the, dog) share 3 words, the first wins: option 1, right; nearest to the rewrite (option 2) by
    # word Jaccard: option 0 1/7, option 1 2/9, option 3 1/9: option 1, right. Most words: option 1 (7), right;
    # shortest by characters and by words: option 0, wrong; mean word Jaccard to the others: option 0 1/21,
    # 1 0.107, 2 0.159, 3 0.070: odd one out option 0, most central option 2, both wrong.
    assert heuristic_flags(item) == {
        "longest": False,
        "shortest": False,
        "longest_words": True,
        "shortest_words": False,
        "question_overlap": True,
        "odd_one_out": False,
        "most_central": False,
        "rewrite_nearest": True,
    }


def test_unlabelled_questions_have_no_flags():
    item = MCQAItem("q@0", "q", "v", "Why?", ("a", "b"), None)
    with pytest.raises(ValueError, match="labelled"):
        per_item_rows([item])


@pytest.fixture(scope="module")
def flow(tmp_path_factory):
    d = tmp_path_factory.mktemp("blind_proof")
    sample = write_sample(d / "sample", media=False)
    val = sample / "qa" / "qa_val.json"
    desiq(
        "probe",
        "--data",
        sample,
        "--probe",
        "tfidf-linear",
        "--per-item",
        "--no-tsne",
        "--no-debiased",
        "--out",
        d / "p",
    )
    flags = d / "p" / "per_item.jsonl"
    desiq("subset", "--data", val, "--method", "unsolved", "--blind-proof", flags, "--out", d / "val.bp.json")
    return SimpleNamespace(dir=d, val=val, per_item=d / "p" / "per_item.jsonl", subset=d / "val.bp.json")


def test_per_item_flags_cover_every_question_and_the_summary_counts_them(flow):
    rows, items = lines_of(flow.per_item), read_mcqa(flow.val)
    assert [r["id"] for r in rows] == [item.id for item in items]
    for row, item in zip(rows, items):
        assert set(row["predictions"]) == {"tfidf-linear:a", "tfidf-linear:q+a"}
        solved = [name for name, pick in row["predictions"].items() if pick == item.answer_idx]
        solved += [name for name, flag in row["heuristics"].items() if flag]
        assert row["solved_by"][: len(solved)] == solved or row["retrained_step"] is not None
        assert row["blind_solvable"] == bool(row["solved_by"])
    info = json.loads((flow.dir / "p" / "probe.json").read_text())["per_item"]
    assert info["items"] == len(items) and info["blind_solvable"] == sum(r["blind_solvable"] for r in rows)
    assert f"{info['blind_solvable']} of {len(items)} questions" in (flow.dir / "p" / "probe.md").read_text()


def test_the_subset_keeps_the_unsolved_lines_byte_for_byte_with_a_data_card(flow):
    rows = lines_of(flow.per_item)
    source = flow.val.read_text(encoding="utf-8").splitlines()
    expected = [line for line, row in zip(source, rows) if not row["blind_solvable"]]
    assert 0 < len(expected) < len(source)
    assert flow.subset.read_text(encoding="utf-8").splitlines() == expected
    card = (flow.dir / "val.bp.json.card.md").read_text()
    assert f"{len(source)} questions read, {len(expected)} kept" in card and "method `unsolved`" in card
    assert "desiq subset --data" in card and "`siq2`" in card and "Options keep the source's order." in card


def test_flags_made_from_another_file_are_refused_in_one_line(flow):
    train = flow.dir / "sample" / "qa" / "qa_train.json"
    result = desiq("subset", "--data", train, "--blind-proof", flow.per_item, "--out", flow.dir / "x.json", code=2)
    assert str(flow.per_item) in result.output and "have no row" in result.output
    assert "Traceback" not in result.output and not (flow.dir / "x.json").exists()


def test_table_shows_a_run_on_the_full_set_and_on_the_subset(flow):
    run = flow.dir / "run"
    desiq("eval", "--model", "random", "--data", flow.val, "--inputs", "q+a", "--condition", "original", "--out", run)
    kept = {r["id"] for r in lines_of(flow.per_item) if not r["blind_solvable"]}
    a4 = [r for r in lines_of(run / "predictions.jsonl") if r["config"] == "A4"]
    full = 100 * np.mean([r["chosen"] == r["gold"] for r in a4])
    part = 100 * np.mean([r["chosen"] == r["gold"] for r in a4 if r["source"] in kept])
    for subset in (flow.per_item, flow.subset):  # the flags, or the subset file matched by content
        text = desiq("table", run, "--subset", subset).output
        line = next(x for x in text.splitlines() if x.startswith("| original | A4 |"))
        cells = [c.strip() for c in line.split("|")]
        assert cells[3] == f"{full:.2f}" and cells[5] == str(len(a4))
        assert cells[6] == f"{part:.2f}" and cells[8] == str(len(kept))


@needs_real_data
@pytest.mark.slow
def test_on_real_social_iq_the_blind_proof_subset_leaves_an_answer_only_probe_at_chance(tmp_path):
    items = read_mcqa(REAL_SIQ2)
    rows, _ = per_item_rows(items, make_probe("tfidf-linear"), "tfidf-linear", seed=0)
    assert [r["id"] for r in rows] == [item.id for item in items]
    flags = tmp_path / "per_item.jsonl"
    flags.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    chosen = choose(REAL_SIQ2, items, [flags], settings=Settings(method="unsolved"))
    write_subset(chosen, tmp_path / "subset.jsonl", "test")
    subset = read_mcqa(tmp_path / "subset.jsonl")
    assert 0 < len(subset) < len(items) and [x.qid for x in subset] == [x.qid for x in chosen.kept]
    # retrained from scratch on the subset read back, cross-fitted by video (5 folds, as --per-item)
    check = cross_fitted_accuracy(make_probe("tfidf-linear"), subset, "a", seed=0, folds=5)
    low, high = check["ci95"]
    assert low <= 0.25 <= high, check
