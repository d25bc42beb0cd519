"""The balanced blind-proof subset (``desiq subset``): on a set with several shortcuts planted, every family,
every flagged probe and every gold position ends within the tolerance of chance, counted here by hand from
the written file; no such subset of --min-keep questions writes nothing; AFLite runs beside it and its card
lists every family; ``desiq table --subset`` matches the reordered questions to a run's."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from planted_mcqa import FAMILIES, planted_rows
from typer.testing import CliRunner

from desiq import aflite
from desiq.balance import reorder
from desiq.cli import app
from desiq.formats import read_mcqa
from desiq.probes.shortcuts import SHORTCUTS
from desiq.records import MCQAItem

K = 4
PER_FAMILY = 80
TOLERANCE = 1.5
PROBE = "planted-probe:a"


def desiq(*args: object, code: int = 0):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == code, result.output
    return result


def planted_file(path: Path) -> Path:
    """Every planted family at strength 0.5 on its own questions (its own groups), in one file."""
    rows = []
    for seed, family in enumerate(FAMILIES):
        for row in planted_rows(PER_FAMILY, K, family, 0.5, seed=seed):
            rows.append({**row, "id": f"{family}-{row['id']}", "group": f"{family}-{row['group']}"})
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def flagged_probe(path: Path, items: list[MCQAItem]) -> dict[str, bool]:
    """A per_item.jsonl whose one probe picks the correct option of every other question (half: twice chance)."""
    right = {item.id: n % 2 == 0 for n, item in enumerate(items)}
    rows = [
        {
            "id": item.id,
            "qid": item.qid,
            "predictions": {PROBE: item.answer_idx if right[item.id] else (item.answer_idx + 1) % K},
            "blind_solvable": right[item.id],
            "solved_by": [PROBE] if right[item.id] else [],
        }
        for item in items
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return right


def applying(items: list[MCQAItem]) -> list[str]:
    """The registered shortcuts that score some of ``items``."""
    rules = [(s.name, s.fit([])) for s in SHORTCUTS if not s.learns]
    return [name for name, rule in rules if any(rule(x) is not None for x in items)]


def words(text: str) -> set[str]:
    return set(re.findall(r"[\w']+", text.lower()))


def share(scores: list[float], answer: int) -> float:
    """Ties as a share, counted without desiq's code: 1/t when the answer is one of t tied at the top."""
    top = [i for i, s in enumerate(scores) if s == max(scores)]
    return 1 / len(top) if answer in top else 0.0


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    d = tmp_path_factory.mktemp("balanced")
    data = planted_file(d / "planted.jsonl")
    items = read_mcqa(data)
    right = flagged_probe(d / "per_item.jsonl", items)
    out = d / "subset.jsonl"
    desiq("subset", "--data", data, "--blind-proof", d / "per_item.jsonl", "--min-keep", 100, "--out", out)
    return SimpleNamespace(dir=d, data=data, items=items, right=right, out=out, kept=read_mcqa(out))


def test_every_planted_family_flagged_probe_and_gold_position_is_within_the_tolerance(planted):
    kept, by_id = planted.kept, {item.qid: item for item in planted.items}
    assert 100 <= len(kept) < len(planted.items)
    for item in kept:  # the same question, its options reordered, the answer following its option
        source = by_id[item.qid]
        assert sorted(item.options) == sorted(source.options) and item.answer == source.answer
    rules = {
        "longest": lambda x: [len(o) for o in x.options],
        "question_overlap": lambda x: [len(words(x.question) & words(o)) for o in x.options],
    }
    for name, rule in rules.items():
        accuracy = np.mean([share(rule(x), x.answer_idx) for x in kept])
        assert abs(100 * accuracy - 100 / K) <= TOLERANCE, name
    full = np.mean([share(rules["question_overlap"](x), x.answer_idx) for x in planted.items])
    assert 100 * full > 100 / K + 5  # the planted overlap was there before
    for p in range(K):
        assert abs(100 * np.mean([x.answer_idx == p for x in kept]) - 100 / K) <= TOLERANCE, p
    probe = np.mean([planted.right[by_id[x.qid].id] for x in kept])  # ids are positions in the file read back
    assert abs(100 * probe - 100 / K) <= TOLERANCE
    card = Path(f"{planted.out}.card.md").read_text(encoding="utf-8")
    for name in [*applying(kept), PROBE, "gold at 3", "tfidf-linear:q+a retrained"]:
        assert f"| {name} |" in card, name
    rows = [line for line in card.splitlines() if line.startswith("| ") and "retrained" not in line]
    assert rows[2:] and all(line.endswith("| yes |") for line in rows[2:])  # every selecting family within
    assert f"{len(planted.items)} questions read, {len(kept)} kept" in card and "options were reordered" in card


def test_the_same_input_and_seed_give_the_same_bytes(planted):
    again = planted.dir / "again.jsonl"
    desiq(
        "subset",
        "--data",
        planted.data,
        "--blind-proof",
        planted.dir / "per_item.jsonl",
        "--min-keep",
        100,
        "--out",
        again,
    )
    assert again.read_bytes() == planted.out.read_bytes()


def test_no_subset_of_min_keep_questions_writes_nothing(planted):
    out = planted.dir / "none.jsonl"
    result = desiq("subset", "--data", planted.data, "--min-keep", len(planted.items), "--out", out, code=2)
    assert "no subset of at least" in result.output and "nothing written" in result.output
    assert "Traceback" not in result.output and not out.exists() and not Path(f"{out}.card.md").exists()


def test_reordering_spreads_the_correct_option_evenly_and_the_answer_follows_it():
    items = [
        MCQAItem(f"q{n}@{n}", f"q{n}", f"v{n % 3}", "Why?", ("right", "w1", "w2"), 0, ("corr", "x", "y"))
        for n in range(10)
    ]
    out = reorder(items, seed=1)
    assert sorted(np.bincount([x.answer_idx for x in out], minlength=3).tolist()) == [3, 3, 4]
    for item in out:
        assert item.answer == "right" and item.option_markers[item.answer_idx] == "corr"
        assert sorted(item.options) == ["right", "w1", "w2"] and item.id in {x.id for x in items}


def test_aflite_runs_beside_it_and_its_card_lists_every_family(planted, monkeypatch):
    monkeypatch.setattr(aflite, "PARTITIONS", 8)  # the paper's 64 probes per round are slow for a test
    out = planted.dir / "aflite.jsonl"
    desiq("subset", "--data", planted.data, "--method", "aflite", "--min-keep", 300, "--out", out)
    kept = read_mcqa(out)
    assert 300 <= len(kept) <= len(planted.items)
    assert [x.options for x in kept] == [x.options for x in planted.items if x.qid in {k.qid for k in kept}]
    card = Path(f"{out}.card.md").read_text(encoding="utf-8")
    assert (
        "method `aflite`" in card and "rounds of 8 blind probes" in card and "Options keep the source's order." in card
    )
    for name in [*applying(kept), "gold at 0", "tfidf-linear:a retrained"]:
        assert f"| {name} |" in card, name


def test_table_matches_a_run_to_the_reordered_subset(planted):
    run = planted.dir / "run"
    desiq(
        "eval", "--model", "random", "--data", planted.data, "--inputs", "q+a", "--condition", "original", "--out", run
    )
    text = desiq("table", run, "--subset", planted.out).output
    line = next(x for x in text.splitlines() if x.startswith("| original | A4 |"))
    assert [c.strip() for c in line.split("|")][8] == str(len(planted.kept))


def test_aflite_removes_what_a_probe_predicts_and_keeps_pure_noise(tmp_path):
    from desiq.probes import make_probe

    def items_of(cue: bool) -> list[MCQAItem]:
        """Pure noise; with ``cue`` the correct option of every question ends in the same word."""
        rows = planted_rows(100, K, None, 0.0, seed=3)
        for row in rows:
            row["choices"][row["answer_idx"]] += " zuvoka" if cue else ""
        path = tmp_path / f"cue-{cue}.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        return read_mcqa(path)

    # a word that gives the answer away: every round drops its 5%, down to min_keep
    cued = aflite.aflite(make_probe("tfidf-linear"), items_of(cue=True), min_keep=80, partitions=8)
    assert cued.keep.sum() == 80 and cued.rounds >= 4
    # nothing to learn: no question is answered by three probes in four, one round and all kept
    noise = aflite.aflite(make_probe("tfidf-linear"), items_of(cue=False), min_keep=50, partitions=8)
    assert noise.keep.all() and noise.rounds == 1
