"""Battles and votes files (validated with file, line and field) and ``mmsoc arena pair`` from run folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mmsoc.arena.media import data_root
from mmsoc.arena.records import read_battles
from mmsoc.cli import app
from mmsoc.tasks import get_task
from mmsoc.tasks.data import load_examples

TASK = "image_description"


def _run(folder: Path, model: str, responses: dict[str, str], seeds=(0,), data: str = "sample") -> Path:
    """A run folder as ``mmsoc eval`` writes it: config.json and one logged row per (item, seed)."""
    folder.mkdir(parents=True)
    config = {
        "model": model,
        "tasks": [TASK],
        "data": data,
        "split": "test",
        "adapter": None,
        "seeds": None if seeds == (None,) else list(seeds),
        "greedy": seeds == (None,),
        "prompt_version": {TASK: "mmsoc-v1"},
    }
    (folder / "config.json").write_text(json.dumps(config))
    rows = [
        {
            "task": TASK,
            "id": item,
            "seed": seed,
            "prompt_version": "mmsoc-v1",
            "raw": f"{text} (seed {seed})",
            "parsed": text,
            "valid": True,
            "strict_valid": True,
            "reference": "ref",
        }
        for seed in seeds
        for item, text in responses.items()
    ]
    (folder / "predictions.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return folder


@pytest.fixture()
def runs(tmp_path):
    ids = [example.id for example in load_examples(TASK, "sample").examples[:5]]
    return ids, [
        _run(tmp_path / "r1", "org/model-one", {i: f"one says {i}" for i in ids}, seeds=(2, 0, 1)),
        _run(
            tmp_path / "r2", str(tmp_path / "local" / "model-two"), {i: f"two says {i}" for i in ids[:4]}, seeds=(None,)
        ),
        _run(tmp_path / "r3", "model-three", {i: f"three says {i}" for i in ids}),
    ]


def _pair(*args: str):
    return CliRunner().invoke(app, ["arena", "pair", *args])


def test_every_pair_over_shared_items_with_recorded_sides(runs, tmp_path):
    _ids, folders = runs
    out = tmp_path / "battles.jsonl"
    result = _pair(*(a for f in folders for a in ("--runs", str(f))), "--out", str(out))
    assert result.exit_code == 0, result.output
    battles = read_battles(out)
    names = ["org/model-one", "model-two", "model-three"]
    pairs = {frozenset(b.models) for b in battles}
    assert pairs == {frozenset(p) for p in [names[:2], names[::2], names[1:]]}
    assert len(battles) == 4 + 4 + 5  # model-two lacks the fifth item
    assert len({b.id for b in battles}) == len(battles)
    examples = {e.id: e for e in load_examples(TASK, "sample").examples}
    root = data_root("sample")
    for b in battles:
        _first, second = sorted(b.models, key=names.index)
        assert b.swapped == (b.model_a == second) and b.position_seed == 0
        seed = {"org/model-one": 2, "model-two": None, "model-three": 0}  # each run's first seed
        assert b.response_a == f"{b.model_a.split('-')[-1]} says {b.item} (seed {seed[b.model_a]})"
        assert b.response_b == f"{b.model_b.split('-')[-1]} says {b.item} (seed {seed[b.model_b]})"
        assert b.task == TASK and b.prompt == get_task(TASK).prompt and b.text == examples[b.item].text
        assert b.data == "sample" and [str(root / m) for m in b.media] == list(examples[b.item].images)
        assert b.model_a not in json.dumps(b.id) and not b.votes
    assert {b.swapped for b in battles} == {True, False}
    again = tmp_path / "again.jsonl"
    _pair(*(a for f in folders for a in ("--runs", str(f))), "--out", str(again))
    assert again.read_bytes() == out.read_bytes()
    # a run added later leaves the battles of the others as they were
    two = tmp_path / "two.jsonl"
    _pair("--runs", str(folders[0]), "--runs", str(folders[2]), "--out", str(two))
    assert set(two.read_text().splitlines()) <= set(out.read_text().splitlines())


def test_seeded_sample_per_pair(runs, tmp_path):
    _, folders = runs
    args = ["--runs", str(folders[0]), "--runs", str(folders[2]), "--per-pair", "3"]
    _pair(*args, "--seed", "5", "--out", str(tmp_path / "a.jsonl"))
    _pair(*args, "--seed", "5", "--out", str(tmp_path / "b.jsonl"))
    _pair(*args, "--seed", "6", "--out", str(tmp_path / "c.jsonl"))
    a, c = read_battles(tmp_path / "a.jsonl"), read_battles(tmp_path / "c.jsonl")
    assert len(a) == 3 and (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert [(b.item, b.swapped) for b in a] != [(b.item, b.swapped) for b in c]
    assert all(b.position_seed == 5 for b in a)


@pytest.mark.parametrize(
    "case, message",
    [
        ("one run", "at least two run folders"),
        ("same model", "are both named 'model-three'; name them with --names"),
        ("other data", "battles need the same items"),
        ("not a run", "not a run folder"),
        ("names", "--names gives 1 names for 2 runs"),
    ],
)
def test_bad_runs_get_one_line_errors(runs, tmp_path, case, message):
    _, folders = runs
    other = {
        "same model": _run(tmp_path / "x", "model-three", {"1": "x"}),
        "other data": _run(tmp_path / "y", "m", {"1": "y"}, data=str(tmp_path)),
        "not a run": tmp_path,
    }.get(case, folders[0])
    args = ["--runs", str(folders[2])] + ([] if case == "one run" else ["--runs", str(other)])
    result = _pair(*args, *(["--names", "x"] if case == "names" else []), "--out", str(tmp_path / "o.jsonl"))
    assert result.exit_code == 2 and message in result.output
    assert len(result.output.strip().splitlines()) == 1 and result.output.startswith("error:")
    assert not (tmp_path / "o.jsonl").exists()


GOOD = {
    "id": "b1",
    "item": "i1",
    "model_a": "x",
    "model_b": "y",
    "response_a": "ra",
    "response_b": "",
    "votes": [{"annotator": "ann", "label": "A", "critique": "", "time": 1.0}],
}


@pytest.mark.parametrize(
    "change, where",
    [
        ({"votes": [{"annotator": "ann", "label": "C", "time": 1.0}]}, "line 2: field 'votes[0].label'"),
        ({"votes": [{"annotator": "ann", "label": "A"}]}, "line 2: field 'votes[0].time'"),
        (
            {"votes": [{"annotator": "a", "label": "A", "time": 1}, {"annotator": "a", "label": "B", "time": 2}]},
            "line 2: field 'votes[1].annotator': annotator 'a' votes twice",
        ),
        ({"model_b": "x"}, "line 2: field 'model_b': model_a and model_b must differ"),
        ({"response_a": 5}, "line 2: field 'response_a': expected a string, got int"),
        ({"media": ["../secret.png"], "data": "sample"}, "line 2: field 'media[0]': must be a path inside"),
        ({"media": ["/etc/passwd"], "data": "sample"}, "line 2: field 'media[0]'"),
        ({"media": ["a.png"]}, "line 2: field 'data': media need a data root"),
        ({"winner": "A"}, "line 2: field 'winner': unknown field"),
        ({"id": "b0"}, "line 2: field 'id': battle id 'b0' also on line 1"),
    ],
)
def test_bad_battle_lines_are_located(tmp_path, change, where):
    path = tmp_path / "votes.jsonl"
    first = {**GOOD, "id": "b0"}
    path.write_text(json.dumps(first) + "\n" + json.dumps({**GOOD, **change}) + "\n")
    with pytest.raises(ValueError) as err:
        read_battles(path)
    assert str(err.value).startswith(str(path)) and where in str(err.value)
    result = CliRunner().invoke(app, ["arena", "rate", "--votes", str(path), "--out", str(tmp_path / "r")])
    assert result.exit_code == 2 and where in result.output and not (tmp_path / "r").exists()


def test_items_whose_data_is_gone_pair_with_a_note(tmp_path):
    gone = str(tmp_path / "moved")
    folders = [_run(tmp_path / name, name, {"1": f"{name} says"}, data=gone) for name in ("m1", "m2")]
    out = tmp_path / "battles.jsonl"
    result = _pair("--runs", str(folders[0]), "--runs", str(folders[1]), "--out", str(out))
    assert result.exit_code == 0 and f"note: task {TASK}: items not loaded from '{gone}'" in result.output
    (battle,) = read_battles(out)
    assert battle.prompt == get_task(TASK).prompt and (battle.text, battle.media, battle.data) == ("", (), None)
