"""One vocabulary for both command-line apps: ARCHITECTURE.md's option table, ``mmsoc.core.options.VOCABULARY``
and every command's parameters say the same thing."""

from __future__ import annotations

import ast
import re
from enum import Enum
from pathlib import Path

import typer

from desiq.cli import app as desiq_app
from mmsoc.cli import app as mmsoc_app
from mmsoc.core.options import VOCABULARY
from mmsoc.core.spellings import SPELLINGS

ROOT = Path(__file__).resolve().parents[1]
ROW = re.compile(r"^\| `(?P<flag>--[^`]+)` \| (?P<meaning>(?:[^|\\]|\\\|)*?) \| (?P<defaults>.*) \|$")


def commands() -> list[tuple[str, object]]:
    """(``prog sub ...``, click command) for every command of both apps."""
    found: list[tuple[str, object]] = []

    def walk(command: object, path: str) -> None:
        subs = getattr(command, "commands", None)
        if subs is None:
            found.append((path, command))
            return
        for name, sub in subs.items():
            walk(sub, f"{path} {name}")

    for prog, app in (("mmsoc", mmsoc_app), ("desiq", desiq_app)):
        walk(typer.main.get_command(app), prog)
    return found


def flag_of(param: object) -> str:
    return "/".join([*param.opts, *param.secondary_opts])  # type: ignore[attr-defined]


def rendered(param: object) -> str:
    """A parameter's default as the table writes it."""
    if getattr(param, "required", False):
        return "required"
    value = param.default  # type: ignore[attr-defined]
    if value is None or value == [] or value == ():
        return "none"
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def options() -> list[tuple[str, str, str]]:
    """(command, flag, default) of every option of every command."""
    return [
        (path, flag_of(param), rendered(param))
        for path, command in commands()
        for param in command.params  # type: ignore[attr-defined]
        if type(param).__name__.endswith("Option") and flag_of(param) != "--help"
    ]


def table() -> dict[str, tuple[str, str]]:
    """flag -> (meaning, defaults cell) of ARCHITECTURE.md's option table."""
    text = (ROOT / "ARCHITECTURE.md").read_text()
    section = text.split("## Command-line options", 1)[1].split("\n## ", 1)[0]
    rows = [ROW.match(line) for line in section.splitlines() if line.startswith("| `--")]
    assert all(rows), "every row of the option table reads | `--flag` | meaning | defaults |"
    found = {row["flag"]: (row["meaning"].replace("\\|", "|"), row["defaults"]) for row in rows if row}
    assert len(found) == len(rows), "a flag is listed twice"
    return found


def test_the_table_and_the_code_list_the_same_flags_with_the_same_meaning():
    listed = table()
    assert sorted(listed) == sorted(VOCABULARY)
    for flag, (meaning, _) in listed.items():
        assert meaning == VOCABULARY[flag], flag


def test_every_command_option_is_in_the_vocabulary_and_every_flag_is_used():
    used = {flag for _, flag, _ in options()}
    assert used - set(VOCABULARY) == set(), "options outside the vocabulary"
    assert set(VOCABULARY) - used == set(), "vocabulary flags no command has"


def test_each_command_default_is_in_the_table():
    listed = table()
    for command, flag, default in options():
        cell = listed[flag][1]
        assert f"`{default}`" in cell, f"{command} {flag}: default {default!r} not in {cell!r}"


def test_one_spelling_per_meaning():
    meanings = list(VOCABULARY.values())
    assert len(set(meanings)) == len(meanings), "two flags with one meaning"
    live = {flag for _, flag, _ in options()}
    # an old spelling kept only for some values (``--config A4``) may name something else now
    old = {flag.old for spellings in SPELLINGS.values() for flag in spellings.flags if flag.value is None}
    assert old and not old & live, "an old spelling is still a live option"


def test_options_are_declared_only_through_the_vocabulary():
    """No module but mmsoc/core/options.py calls ``typer.Option`` itself."""
    offenders = []
    for path in [*ROOT.glob("mmsoc/**/*.py"), *ROOT.glob("desiq/**/*.py")]:
        if path == ROOT / "mmsoc/core/options.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "Option" and getattr(node.value, "id", "") == "typer":
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []
