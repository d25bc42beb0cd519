"""Names and texts a user gives are capped before they are echoed or stored: one short error line, whatever
was typed, and nothing written."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from mmsoc.arena.store import VoteStore
from mmsoc.cli import app
from mmsoc.core.io import UsageError
from mmsoc.core.names import NAME_LIMIT, SHOWN, given_name, shown

HUGE = "n" * 100_000


def one_error_line(output: str) -> str:
    (line,) = output.strip().splitlines()
    assert line.startswith("error: ") and "Traceback" not in output
    return line


def test_shown_cuts_a_long_text_and_says_how_long_it_was():
    assert shown("alice") == "'alice'"
    assert shown(HUGE) == f"{'n' * SHOWN!r}... (100,000 characters)"
    assert given_name("x" * NAME_LIMIT, "--name") == "x" * NAME_LIMIT
    with pytest.raises(UsageError, match=r"--name 'x+'\.\.\. \(201 characters\) is longer than 200 characters"):
        given_name("x" * (NAME_LIMIT + 1), "--name")
    with pytest.raises(UsageError, match="--name is empty"):
        given_name("  ", "--name")


def test_a_huge_invite_name_is_one_short_line_and_invites_nobody(tmp_path):
    db = tmp_path / "votes.db"
    result = CliRunner().invoke(app, ["arena", "invite", "--db", str(db), "--name", "alice", "--name", HUGE])
    assert result.exit_code == 2
    line = one_error_line(result.output)
    assert "(100,000 characters)" in line and len(line) < 250
    assert VoteStore(db).annotators() == []


def test_pair_refuses_a_huge_model_name_before_writing(tmp_path):
    runs = []
    for name in ("a", "b"):
        folder = tmp_path / name
        folder.mkdir()
        config = {"model": name, "tasks": ["image_description"], "data": "sample", "split": "test"}
        (folder / "config.json").write_text(json.dumps(config))
        (folder / "predictions.jsonl").write_text("")
        runs += ["--runs", str(folder)]
    out = tmp_path / "battles.jsonl"
    result = CliRunner().invoke(app, ["arena", "pair", *runs, "--names", f"one,{HUGE}", "--out", str(out)])
    assert result.exit_code == 2
    line = one_error_line(result.output)
    assert line.startswith("error: --names name 'nnn") and len(line) < 250 and not out.exists()
    (tmp_path / "b" / "config.json").write_text(json.dumps({"model": HUGE, "data": "sample", "split": "test"}))
    result = CliRunner().invoke(app, ["arena", "pair", *runs, "--out", str(out)])
    assert result.exit_code == 2
    line = one_error_line(result.output)
    assert "model name (--names names it otherwise)" in line and len(line) < 300 and not out.exists()


def test_a_model_that_cannot_load_is_named_in_one_short_line(tmp_path, monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    result = CliRunner().invoke(
        app, ["eval", "--task", "hate", "--model", HUGE, "--limit", "1", "--out", str(tmp_path / "run")]
    )
    assert result.exit_code == 2
    line = one_error_line(result.output)
    assert line.startswith("error: cannot load model 'nnn") and "(100,000 characters)" in line
    assert len(line) < 300 and not (tmp_path / "run").exists()


def test_a_huge_unknown_name_or_choice_is_echoed_capped(tmp_path):
    from desiq.cli import app as desiq_app

    task = CliRunner().invoke(app, ["eval", "--task", HUGE, "--model", "random", "--out", str(tmp_path / "run")])
    assert task.exit_code == 2
    line = one_error_line(task.output)
    assert line.startswith(f"error: unknown task {shown(HUGE)}") and len(line) < 1000  # the known tasks follow
    choice = CliRunner().invoke(
        desiq_app, ["perturb", "--data", "sample", "--condition", HUGE, "--out", str(tmp_path / "p.jsonl")]
    )
    assert choice.exit_code == 2
    assert (
        one_error_line(choice.output) == f"error: --condition {shown(HUGE)}: choose NCAQ, RIWI, RIWA, RAWI, RAWA, SHUF"
    )


def test_a_votes_file_with_a_huge_annotator_name_is_one_short_line(tmp_path):
    battle = {"id": "b1", "item": "i1", "model_a": "x", "model_b": "y", "response_a": "ra", "response_b": "rb"}
    battle["votes"] = [{"annotator": HUGE, "label": "A", "time": 1.0}]
    path = tmp_path / "votes.jsonl"
    path.write_text(json.dumps(battle) + "\n")
    result = CliRunner().invoke(app, ["arena", "rate", "--votes", str(path), "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    line = one_error_line(result.output)
    assert f"line 1: field 'votes[0].annotator': annotator {shown(HUGE)} is longer than 200 characters" in line
    assert len(line) < len(str(path)) + 250 and not (tmp_path / "r").exists()
