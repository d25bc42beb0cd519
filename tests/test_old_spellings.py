"""Old spellings of commands and flags keep working for one release, each with one note on stderr, and
never show in ``--help``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.core import TyperCommand, TyperGroup
from typer.testing import CliRunner

from desiq.cli import app as desiq_app
from mmsoc.cli import app as mmsoc_app
from mmsoc.core.spellings import SPELLINGS, rewrite

APPS = {"mmsoc": mmsoc_app, "desiq": desiq_app}
EVAL_RANDOM = [
    "eval",
    "--model",
    "random",
    "--data",
    "sample",
    "--task",
    "misinfo_politifact",
    "--limit",
    "2",
    "--no-progress",
]
LATER = "the old spelling goes in the next release"


def group(name: str) -> TyperGroup:
    root = typer.main.get_command(APPS[name])
    assert isinstance(root, TyperGroup)
    return root


def command(name: str, path: tuple[str, ...]) -> TyperCommand | TyperGroup | None:
    node: object = group(name)
    for word in path:
        node = node.commands.get(word) if isinstance(node, TyperGroup) else None
    return node if isinstance(node, (TyperCommand, TyperGroup)) else None


def flags(node: object) -> set[str]:
    assert isinstance(node, TyperCommand)
    return {opt for param in node.params for opt in (*param.opts, *param.secondary_opts)}


def run(name: str, args: list[str]):
    return CliRunner().invoke(APPS[name], args)


@pytest.mark.parametrize("app", sorted(SPELLINGS))
def test_every_new_spelling_exists_and_no_old_one_does(app):
    """The table against the apps: each new spelling is there, each old one is gone (the one old flag
    kept with another meaning, ``--config``, is the FILE option every command has)."""
    for renamed in SPELLINGS[app].commands:
        assert isinstance(command(app, renamed.new), TyperCommand), renamed.new
        assert command(app, renamed.old) is None, renamed.old
    for flag in SPELLINGS[app].flags:
        for path in flag.commands:
            known = flags(command(app, path))
            assert flag.new in known, (path, flag.new)
            assert (flag.old in known) == (flag.value is not None), (path, flag.old)


@pytest.mark.parametrize(
    ("old", "new"),
    [(["train"], ["fusion", "train"]), (["evaluate"], ["fusion", "eval"])],
)
def test_an_old_command_runs_the_new_one_with_a_note(old, new):
    result = run("desiq", [*old, "--help"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [f"note: `desiq {' '.join(old)}` is now `desiq {' '.join(new)}`; {LATER}"]
    assert f"Usage: desiq {' '.join(new)} [OPTIONS]" in result.stdout


def _perturb(tmp_path: Path, name: str, args: list[str]) -> tuple[bytes, bytes, str]:
    out = tmp_path / f"{name}.jsonl"
    result = run("desiq", ["perturb", "--data", "sample", "--out", str(out), "--seed", "1", *args])
    assert result.exit_code == 0, result.output
    return out.read_bytes(), Path(f"{out}.card.md").read_bytes(), result.stderr


def test_old_perturb_flags_write_the_same_bytes_as_the_new_ones(tmp_path):
    new, new_card, new_err = _perturb(tmp_path, "new", ["--condition", "RIWA", "--choices", "A2"])
    old, old_card, old_err = _perturb(tmp_path, "old", ["--kind", "RIWA", "--config", "a2"])
    inline, inline_card, inline_err = _perturb(tmp_path, "inline", ["--kind=RIWA", "--config=A2"])
    assert old == new == inline
    assert old_card.replace(b"old.jsonl", b"new.jsonl") == new_card
    assert inline_card.replace(b"inline.jsonl", b"new.jsonl") == new_card
    assert not any(line.startswith("note: `") for line in new_err.splitlines())
    assert [line for line in old_err.splitlines() if line.startswith("note: `")] == [
        f"note: `--kind` is now `--condition`; {LATER}",
        f"note: `--config a2` is now `--choices a2`; {LATER}",
    ]
    assert f"note: `--config A2` is now `--choices A2`; {LATER}" in inline_err


def test_a_config_value_that_is_no_choice_stays_a_file(tmp_path):
    """``--config a4.yaml`` is a file, not the old ``--config A4``."""
    settings = tmp_path / "a4.yaml"
    settings.write_text("condition: RIWA\nchoices: A2\n")
    new, _, _ = _perturb(tmp_path, "new", ["--condition", "RIWA", "--choices", "A2"])
    from_file, _, err = _perturb(tmp_path, "file", ["--config", str(settings)])
    assert from_file == new
    assert "note: `" not in err


def test_an_old_prompt_flag_gives_the_same_run_as_the_new_one(tmp_path):
    configs = []
    for name, flag in (("new", "--prompt"), ("old", "--prompt-version")):
        out = tmp_path / name
        result = run(
            "mmsoc",
            [*EVAL_RANDOM, flag, "mmsoc-v1", "--out", str(out)],
        )
        assert result.exit_code == 0, result.output
        configs.append(json.loads((out / "config.json").read_text()))
        notes = [line for line in result.stderr.splitlines() if line.startswith("note: `")]
        assert notes == ([f"note: `--prompt-version` is now `--prompt`; {LATER}"] if name == "old" else [])
    assert configs[0] == configs[1]
    assert configs[0]["prompt_version"] == {"misinfo_politifact": "mmsoc-v1"}


@pytest.mark.parametrize(
    ("app", "args", "expected"),
    [
        ("mmsoc", ["finetune", "--tasks", "a", "--tasks=b"], ["finetune", "--task", "a", "--task=b"]),
        ("mmsoc", ["arena", "judge", "--prompt-version", "v2"], ["arena", "judge", "--prompt", "v2"]),
        ("desiq", ["eval", "--conditions", "NCAQ,RIWA"], ["eval", "--condition", "NCAQ,RIWA"]),
        ("desiq", ["evaluate", "--perturb", "RIWA"], ["fusion", "eval", "--condition", "RIWA"]),
        ("desiq", ["train", "--config", "AK"], ["fusion", "train", "--choices", "AK"]),
        ("desiq", ["table", "--config=a4"], ["table", "--choices=a4"]),
        # a flag's value that looks like an old flag, and anything after --, are left alone
        ("desiq", ["perturb", "--out", "--kind", "--kind", "A"], ["perturb", "--out", "--kind", "--condition", "A"]),
        ("desiq", ["perturb", "--", "--kind"], ["perturb", "--", "--kind"]),
        # an old flag of another command is not this command's
        ("mmsoc", ["eval", "--tasks", "a"], ["eval", "--tasks", "a"]),
    ],
)
def test_rewrite(app, args, expected):
    assert rewrite(app, group(app), args).args == expected


def _help(app: str, path: tuple[str, ...]) -> str:
    result = CliRunner().invoke(APPS[app], [*path, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("app", sorted(SPELLINGS))
def test_help_shows_no_old_spelling(app):
    old_flags = {flag.old for flag in SPELLINGS[app].flags if flag.value is None}
    paths = {path for flag in SPELLINGS[app].flags for path in flag.commands}
    for path in sorted(paths):
        text = _help(app, path)
        for old in old_flags:
            assert not re.search(rf"(?<![\w-]){re.escape(old)}(?![\w-])", text), (path, old)
    listed = set(group(app).commands)
    assert not {renamed.old[0] for renamed in SPELLINGS[app].commands} & listed


def test_the_console_script_rewrites_too():
    result = subprocess.run(
        [sys.executable, "-m", "desiq", "evaluate", "--help"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [f"note: `desiq evaluate` is now `desiq fusion eval`; {LATER}"]
    assert "desiq fusion eval" in result.stdout
