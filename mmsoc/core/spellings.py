"""Old spellings of commands and flags, kept for one release: the table, and the rewrite of a command line.

A command line in an old spelling is rewritten to the new one before it is parsed, with one note on stderr
per old spelling it used, so old scripts keep working while ``--help`` shows only the new vocabulary.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from typer.core import TyperCommand, TyperGroup, TyperOption


@dataclass(frozen=True)
class RenamedCommand:
    old: tuple[str, ...]
    new: tuple[str, ...]


@dataclass(frozen=True)
class RenamedFlag:
    """``old`` -> ``new`` on the commands in ``commands``; with ``value``, only when the flag's value matches
    it (a flag whose spelling now means something else)."""

    commands: tuple[tuple[str, ...], ...]
    old: str
    new: str
    value: re.Pattern[str] | None = None


@dataclass(frozen=True)
class Spellings:
    commands: tuple[RenamedCommand, ...] = ()
    flags: tuple[RenamedFlag, ...] = ()


@dataclass(frozen=True)
class Rewritten:
    args: list[str]
    notes: list[str] = field(default_factory=list)


CHOICES_VALUE = re.compile(r"(?i)a\d+|ak")
"""A ``--config`` value that names answer choices (A4, A2, AK), not a file."""

SPELLINGS: dict[str, Spellings] = {
    "mmsoc": Spellings(
        flags=(
            RenamedFlag((("finetune",),), "--tasks", "--task"),
            RenamedFlag(
                (("eval",), ("finetune",), ("self-improve",), ("arena", "judge")),
                "--prompt-version",
                "--prompt",
            ),
            RenamedFlag((("score",),), "--parser", "--parse"),
            RenamedFlag((("report",), ("score",)), "--no-embeddings", "--fast-metrics"),
        ),
    ),
    "desiq": Spellings(
        commands=(
            RenamedCommand(("train",), ("fusion", "train")),
            RenamedCommand(("evaluate",), ("fusion", "eval")),
        ),
        flags=(
            RenamedFlag((("perturb",),), "--kind", "--condition"),
            RenamedFlag((("fusion", "eval"),), "--perturb", "--condition"),
            RenamedFlag((("eval",),), "--conditions", "--condition"),
            RenamedFlag((("perturb",), ("fusion", "train"), ("table",)), "--config", "--choices", CHOICES_VALUE),
        ),
    ),
}
"""Per app, what was renamed (the old spelling goes in the next release)."""


def notice(old: str, new: str) -> str:
    return f"note: `{old}` is now `{new}`; the old spelling goes in the next release"


def rewrite(app: str, root: TyperGroup, args: Sequence[str]) -> Rewritten:
    """``args`` (after the program name) in the new spellings of ``app``, and a note per old spelling used."""
    spellings = SPELLINGS.get(app, Spellings())
    out, notes = list(args), []
    for renamed in spellings.commands:
        if tuple(out[: len(renamed.old)]) == renamed.old:
            out[: len(renamed.old)] = renamed.new
            notes.append(notice(" ".join((app, *renamed.old)), " ".join((app, *renamed.new))))
    command, depth = _resolve(root, out)
    if command is not None:
        path = tuple(out[:depth])
        renamed_flags = [flag for flag in spellings.flags if path in flag.commands]
        notes += _rewrite_flags(out, depth, renamed_flags, _options_taking_values(command))
    return Rewritten(out, list(dict.fromkeys(notes)))


def _rewrite_flags(args: list[str], start: int, renamed: list[RenamedFlag], taking_values: set[str]) -> list[str]:
    """Rewrite the old flags in ``args[start:]`` (up to ``--``) in place; the notes."""
    notes = []
    index = start
    while index < len(args) and args[index] != "--":
        name, equals, value = args[index].partition("=")
        if not equals and index + 1 < len(args):
            value = args[index + 1]
        flag = next((f for f in renamed if f.old == name and (f.value is None or f.value.fullmatch(value))), None)
        if flag is not None:
            args[index] = flag.new + equals + (value if equals else "")
            shown = (f"{name} {value}", f"{flag.new} {value}") if flag.value is not None else (name, flag.new)
            notes.append(notice(*shown))
        takes_value = flag is not None or name in taking_values
        index += 2 if takes_value and not equals else 1
    return notes


def _resolve(root: TyperGroup, args: Sequence[str]) -> tuple[TyperCommand | None, int]:
    """The command ``args`` name (a leaf, not a group) and how many words name it."""
    node: object = root
    depth = 0
    while isinstance(node, TyperGroup) and depth < len(args):
        node, depth = node.commands.get(args[depth]), depth + 1
    return (node, depth) if isinstance(node, TyperCommand) else (None, depth)


def _options_taking_values(command: TyperCommand) -> set[str]:
    """The flags of ``command`` that take the next word as their value."""
    return {
        name
        for param in command.params
        if isinstance(param, TyperOption) and not param.is_flag and not param.count
        for name in param.opts
    }
