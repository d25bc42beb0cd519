"""``desiq list WHAT``: the MCQA formats, probes, perturbations, conditions, prompts and models a desiq
command can be given, each with one line on it and its origin (``built in`` or ``plugin DIST (module)``).

Also the one-line help texts of the options that name them (importing nothing heavy).
"""

from __future__ import annotations

from collections.abc import Callable

import typer

from mmsoc.commands.listing import Row, model_rows, print_rows
from mmsoc.core.cli import commands
from mmsoc.core.io import UsageError
from mmsoc.core.registry import unknown_message

app = commands()


def format_rows() -> list[Row]:
    from desiq.formats import MCQA_FORMATS

    return [
        Row(name, f.description + ("" if f.write else " (read only)"), MCQA_FORMATS.origin(name))
        for name, f in MCQA_FORMATS.items()
    ]


def probe_rows() -> list[Row]:
    """Every probe, and after ``heuristics`` each rule of its shortcut battery (``desiq.probes.shortcuts``)."""
    from desiq.probes import PROBES
    from desiq.probes.shortcuts import SHORTCUTS

    rows = []
    for name, entry in PROBES.items():
        rows.append(Row(name, entry.summary, PROBES.origin(name)))
        if not entry.trains:
            rows += [Row(f"{name}:{s.name}", f"{s.summary} (reads {s.reads})") for s in SHORTCUTS]
    return rows


def perturbation_rows() -> list[Row]:
    from desiq.perturbations import PERTURBATIONS

    return [Row(name, p.change, PERTURBATIONS.origin(name)) for name, p in PERTURBATIONS.items()]


def condition_description(condition: str) -> str:
    """What a model is asked under ``condition`` (``desiq.llm.conditions``), in words."""
    from desiq.llm.conditions import CIRCULAR, ORIGINAL, SPLIT_CONDITIONS
    from desiq.perturbations import PERTURBATIONS, SPLITS

    if condition == ORIGINAL:
        return "the questions as released"
    if condition == CIRCULAR:
        return "every question under each rotation of its options; correct only when correct under all of them"
    if condition in SPLIT_CONDITIONS:
        split = SPLITS[SPLIT_CONDITIONS[condition]]
        return f"the {split.name} split: {split.change}, partners from {split.scope.value.replace('-', ' ')}s"
    return PERTURBATIONS[condition].change


def condition_rows() -> list[Row]:
    from desiq.llm.conditions import CONDITIONS
    from desiq.perturbations import PERTURBATIONS

    return [
        Row(c, condition_description(c), PERTURBATIONS.origin(c) if c in PERTURBATIONS else "built in")
        for c in CONDITIONS
    ]


def prompt_rows() -> list[Row]:
    from desiq.llm.prompts import BUILTIN

    return [
        Row(name, f"options labelled {p.labels[0]}..{p.labels[-1]}, answered as {p.answer!r}")
        for name, p in BUILTIN.items()
    ]


LISTS: dict[str, Callable[[], list[Row]]] = {
    "formats": format_rows,
    "probes": probe_rows,
    "perturbations": perturbation_rows,
    "conditions": condition_rows,
    "prompts": prompt_rows,
    "models": model_rows,
}


def mcqa_format_help() -> str:
    """The ``--format`` help: every MCQA format (plugins too), and what ``auto`` does."""
    from desiq.formats import MCQA_FORMATS

    names = ", ".join(name for name, _, _ in MCQA_FORMATS.known())
    return f"Format of the QA file: auto (by content), {names} (`desiq list formats`)."


def out_format_help() -> str:
    """The ``--out-format`` help: every MCQA format that can be written."""
    from desiq.formats import MCQA_FORMATS

    writable = [name for name, f, _ in MCQA_FORMATS.known() if f.write is not None]
    return f"Format of the file written: {', '.join(writable)} (default: the input's, where --out's extension fits)."


def condition_help() -> str:
    """The ``--condition`` help of ``desiq eval``: every condition (plugin perturbations too)."""
    from desiq.llm.conditions import CONDITIONS

    return (
        f"Comma-separated conditions: {', '.join(CONDITIONS)} (`desiq list conditions`); default: all (for "
        "unlabelled questions, those that need no answer key)."
    )


def prompt_help() -> str:
    """The ``--prompt`` help of ``desiq eval`` and ``desiq finetune``: the built-in prompts."""
    from desiq.llm.prompts import BUILTIN, DEFAULT_PROMPT

    return f"Prompt: {', '.join(BUILTIN)} or one of a --prompts file (default {DEFAULT_PROMPT}; `desiq list prompts`)."


@app.command("list")
def list_command(
    listing: str = typer.Argument(..., help=f"What to list: {', '.join(LISTS)}.", metavar="WHAT"),
) -> None:
    """List every name in WHAT (formats, probes, conditions, ...): its description and origin."""
    if listing not in LISTS:
        raise UsageError(unknown_message("list", listing, LISTS))
    print_rows(LISTS[listing]())
