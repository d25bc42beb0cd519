"""``--config FILE`` on every command: a YAML or JSON mapping of its options; the command line wins, and
the resolved values are what the command records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.core import TyperCommand, TyperGroup
from typer.testing import CliRunner

from desiq.cli import app as desiq_app
from mmsoc.cli import app as mmsoc_app

APPS = {"mmsoc": mmsoc_app, "desiq": desiq_app}
EVAL = ["eval", "--no-progress"]
SAMPLE = ["--model", "random", "--data", "sample", "--task", "misinfo_politifact", "--limit", "2"]


def run(app: str, args: list[str]):
    return CliRunner().invoke(APPS[app], args)


def leaves(node: object, path: tuple[str, ...] = ()):
    if isinstance(node, TyperGroup):
        for name, child in node.commands.items():
            yield from leaves(child, (*path, name))
    elif isinstance(node, TyperCommand):
        yield path, node


def recorded(out: Path) -> dict:
    return json.loads((out / "config.json").read_text())


def test_a_yaml_file_gives_the_options_and_the_command_line_wins(tmp_path):
    settings = tmp_path / "eval.yaml"
    settings.write_text(
        "model: random\ndata: sample\ntask: misinfo_politifact\nlimit: 2\nmax-new-tokens: 7\ntop_p: 0.5\n"
    )
    out = tmp_path / "run"
    result = run("mmsoc", [*EVAL, "--config", str(settings), "--limit", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    config = recorded(out)
    assert (config["model"], config["data"], config["tasks"]) == ("random", "sample", ["misinfo_politifact"])
    assert (config["max_new_tokens"], config["top_p"], config["limit"]) == (7, 0.5, 1)
    rows = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert len({row["id"] for row in rows}) == 1


def test_a_json_file_runs_as_the_same_flags_do(tmp_path):
    settings = tmp_path / "perturb.json"
    settings.write_text(json.dumps({"data": "sample", "condition": "RIWA", "choices": "A2", "seed": 3}))
    by_file, by_flags = tmp_path / "file.jsonl", tmp_path / "flags.jsonl"
    first = run("desiq", ["perturb", "--config", str(settings), "--out", str(by_file)])
    flags = ["--data", "sample", "--condition", "RIWA", "--choices", "A2", "--seed", "3", "--out", str(by_flags)]
    second = run("desiq", ["perturb", *flags])
    assert first.exit_code == second.exit_code == 0, first.output + second.output
    assert by_file.read_bytes() == by_flags.read_bytes()


def test_arguments_come_from_the_file_too_and_one_value_is_a_list_of_one(tmp_path):
    run_dir, report = tmp_path / "run", tmp_path / "report"
    evaluated = run(
        "mmsoc",
        [*EVAL, *SAMPLE, "--out", str(run_dir)],
    )
    assert evaluated.exit_code == 0, evaluated.output
    settings = tmp_path / "report.yaml"
    settings.write_text(f"run-dirs: {run_dir}\nout: {report}\nbootstrap: 10\n")
    result = run("mmsoc", ["report", "--config", str(settings)])
    assert result.exit_code == 0, result.output
    assert str(run_dir) in (report / "report.json").read_text()


def _error(app: str, args: list[str]) -> str:
    result = run(app, args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def test_a_key_that_is_no_option_is_named_with_the_nearest_known_as_a_flag_is(tmp_path):
    settings = tmp_path / "eval.yaml"
    settings.write_text("model: random\nbatchsize: 4\n")
    line = _error("mmsoc", [*EVAL, "--config", str(settings)])
    # the form of an unknown flag: "unknown option '--batchsize' of mmsoc eval; nearest: --batch-size; known: ..."
    expected = f"error: {settings}: unknown option 'batchsize' of this command; nearest: batch-size; known: "
    assert line.startswith(expected)
    known = line.split("; known: ")[1].split(", ")
    assert "config" not in known and {"model", "max-new-tokens", "top-p"} <= set(known)
    flag = _error("mmsoc", [*EVAL, "--batchsize", "4"])
    assert "; nearest: --batch-size; known: " in flag


@pytest.mark.parametrize(
    ("name", "text", "wanted"),
    [
        ("missing.yaml", None, "missing.yaml: no such file"),
        ("bad.yaml", "model: [random\n", "invalid YAML"),
        ("bad.json", '{"model": "random",}', "invalid JSON"),
        ("nan.json", '{"top_p": NaN}', "not standard JSON"),
        ("list.yaml", "- model\n- random\n", "expected a mapping of option names to values"),
        ("settings.toml", 'model = "random"\n', "YAML (.yaml, .yml) or JSON (.json)"),
        ("two.yaml", "model: [random, random]\n", "takes one value, not a list or mapping (several values"),
    ],
)
def test_a_bad_file_is_one_line_and_exit_2(tmp_path, name, text, wanted):
    settings = tmp_path / name
    if text is not None:
        settings.write_text(text)
    line = _error("mmsoc", [*EVAL, "--config", str(settings)])
    assert str(settings) in line and wanted in line


@pytest.mark.parametrize("app", sorted(APPS))
def test_every_command_has_config(app):
    commands = list(leaves(typer.main.get_command(APPS[app])))
    assert len(commands) > 5
    for path, command in commands:
        assert any(param.opts == ["--config"] for param in command.params), path


def test_help_lists_config():
    result = CliRunner().invoke(desiq_app, ["fusion", "train", "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "--config" in result.stdout and "FILE" in result.stdout
