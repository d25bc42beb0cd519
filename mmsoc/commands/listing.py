"""``mmsoc list WHAT``: every name a user can choose, with one line on it and where it comes from.

Each row is a name, a description and an origin (``built in`` or ``plugin DIST (module)``), printed to
stdout as aligned plain text (name, origin, description), nothing cut. This is the complete listing:
prompts and formats of every command (each description says which command and option take the name), and
the desiq lists (probes, perturbations, conditions) from :mod:`desiq.commands.listing`, which lists the
desiq-only view.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import typer

from mmsoc.core.cli import commands
from mmsoc.core.io import UsageError
from mmsoc.core.options import option
from mmsoc.core.plugins import BUILT_IN
from mmsoc.core.registry import unknown_message

app = commands()


@dataclass(frozen=True)
class Row:
    """One listed name."""

    name: str
    description: str
    origin: str = BUILT_IN


def print_rows(rows: Iterable[Row]) -> None:
    """The rows as aligned columns on stdout, every value in full: name, origin, then the description
    (last, so that a long one never pushes the other columns)."""
    rows = [Row("name", "description", "origin"), *rows]
    name_width = max(len(row.name) for row in rows)
    origin_width = max(len(row.origin) for row in rows)
    for row in rows:
        sys.stdout.write(f"{row.name:<{name_width}}  {row.origin:<{origin_width}}  {row.description}".rstrip() + "\n")


def first_sentence(text: str | None) -> str:
    """The first sentence of a docstring, on one line."""
    words = " ".join((text or "").split())
    head, dot, _ = words.partition(". ")
    return head + ("." if dot else "")


def joined(origins: Iterable[str]) -> str:
    """Distinct origins, in order, as one value."""
    return ", ".join(dict.fromkeys(origins)) or BUILT_IN


def model_rows() -> list[Row]:
    from mmsoc.models.registry import BACKENDS

    return [Row(name, f"--model {e.spelling}: {e.description}", BACKENDS.origin(name)) for name, e in BACKENDS.items()]


def task_rows(suite: str | None = None) -> list[Row]:
    from mmsoc.tasks.registry import TASKS, suites, task_ids

    rows = []
    for name in suites() if suite is None else [suite]:
        for task in task_ids(name):
            spec = TASKS.get(task)
            what = f"{spec.kind} on {spec.dataset}, headline {spec.headline}"
            rows.append(Row(task, what + (f" ({spec.category})" if spec.category else ""), TASKS.origin(task)))
    return rows


def suite_rows() -> list[Row]:
    from mmsoc.tasks.registry import TASKS, suites, task_ids

    return [
        Row(name, f"{len(ids)} tasks", joined(TASKS.origin(t) for t in ids))
        for name in suites()
        for ids in [task_ids(name)]
    ]


def kind_rows() -> list[Row]:
    from mmsoc.tasks.kinds import KINDS

    return [
        Row(name, first_sentence(sys.modules[type(kind).__module__].__doc__) or name, KINDS.origin(name))
        for name, kind in KINDS.items()
    ]


def metric_rows() -> list[Row]:
    """One short row per metric key: the kinds that report it and the packages that compute it (each method in
    full is in a report's "How each number was computed")."""
    from mmsoc.metrics.registry import GROUPS, all_keys

    found: dict[str, list[tuple[str, tuple[str, ...], tuple[str, ...]]]] = {}
    for name, group in GROUPS.items():
        for metric in group.metrics:
            found.setdefault(metric.key, []).append((GROUPS.origin(name), group.kinds, metric.packages))
    rows = []
    for key in all_keys():
        kinds = ", ".join(dict.fromkeys(kind for _, ks, _ in found[key] for kind in ks))
        packages = ", ".join(dict.fromkeys(package for _, _, ps in found[key] for package in ps))
        computed = f"packages: {packages}" if packages else "computed by mmsoc itself"
        rows.append(Row(key, f"kinds: {kinds}; {computed}", joined(origin for origin, _, _ in found[key])))
    return rows


def format_rows() -> list[Row]:
    """Both sets of file formats: prediction files (``mmsoc score --format``) and MCQA question files (the
    ``--format`` of the desiq commands)."""
    from desiq.commands import listing
    from mmsoc.tasks.prediction_files import PREDICTION_FORMATS

    own = [
        Row(name, f"mmsoc score --format: {f.description}", PREDICTION_FORMATS.origin(name))
        for name, f in PREDICTION_FORMATS.items()
    ]
    return own + used_by("desiq ... --format", listing.format_rows())


def used_by(option_words: str, rows: Iterable[Row]) -> list[Row]:
    """``rows`` with the command and option that take each name put before its description."""
    return [Row(row.name, f"{option_words}: {row.description}", row.origin) for row in rows]


def prompt_rows() -> list[Row]:
    """Every prompt by command: the task prompt versions (``mmsoc eval`` and fine-tuning, with the suites and
    number of tasks asked with each), the arena judge prompts and the desiq prompts."""
    from desiq.commands import listing
    from mmsoc.arena.judge_prompts import LATEST, PROMPTS
    from mmsoc.tasks.registry import TASKS

    versions: dict[str, list[str]] = {}
    for task, spec in TASKS.items():
        versions.setdefault(spec.prompt_version, []).append(task)
    rows = []
    for version, tasks in versions.items():
        suites = ", ".join(dict.fromkeys(TASKS.get(t).suite for t in tasks))
        what = f"mmsoc eval/finetune/self-improve --prompt: the prompts of {len(tasks)} tasks of {suites}"
        rows.append(Row(version, what, joined(map(TASKS.origin, tasks))))
    judge = "mmsoc arena judge --prompt: a pairwise verdict (A, B, tie, both bad) after a critique"
    rows += [Row(version, judge + (" (the default)" if version == LATEST else "")) for version in PROMPTS]
    return rows + used_by("desiq eval/finetune --prompt", listing.prompt_rows())


def desiq_rows(name: str) -> Callable[[], list[Row]]:
    def rows() -> list[Row]:
        from desiq.commands import listing

        return listing.LISTS[name]()

    return rows


LISTS: dict[str, Callable[[], list[Row]]] = {
    "models": model_rows,
    "tasks": task_rows,
    "suites": suite_rows,
    "kinds": kind_rows,
    "metrics": metric_rows,
    "formats": format_rows,
    **{name: desiq_rows(name) for name in ("probes", "perturbations", "conditions")},
    "prompts": prompt_rows,
}


def list_help(lists: Iterable[str]) -> str:
    return f"What to list: {', '.join(lists)}."


@app.command("list")
def list_command(
    listing: str = typer.Argument(..., help=list_help(LISTS), metavar="WHAT"),
    suite: str | None = option(None, "--suite", help="With tasks: only this suite's."),
) -> None:
    """List every name in WHAT (models, tasks, metrics, ...): its description and origin."""
    if listing not in LISTS:
        raise UsageError(unknown_message("list", listing, LISTS))
    if suite is not None and listing != "tasks":
        raise UsageError("--suite applies to mmsoc list tasks")
    print_rows(task_rows(suite) if listing == "tasks" else LISTS[listing]())


def prompt_help() -> str:
    """The ``--prompt`` help of the mmsoc commands: the prompt versions of the tasks (plugins too)."""
    from mmsoc.tasks.registry import TASKS

    versions = ", ".join(dict.fromkeys(spec.prompt_version for _, spec, _ in TASKS.known()))
    return f"Prompt version (default: each task's own: {versions}; `mmsoc list prompts`)."
