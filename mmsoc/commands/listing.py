"""``mmsoc list KIND``: every name a user can choose, with one line on it and where it comes from.

Each row is a name, a description and an origin (``built in`` or ``plugin DIST (module)``), printed to
stdout as aligned plain text (name, origin, description), nothing cut. The desiq kinds (probes,
perturbations, conditions) are listed by :mod:`desiq.commands.listing`.
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
    """One row per metric key: its method and the kinds that report it, from every group giving it."""
    from mmsoc.metrics.registry import GROUPS, all_keys

    found: dict[str, list[tuple[str, str, tuple[str, ...]]]] = {}
    for name, group in GROUPS.items():
        for metric in group.metrics:
            found.setdefault(metric.key, []).append((GROUPS.origin(name), metric.method, group.kinds))
    rows = []
    for key in all_keys():
        kinds = ", ".join(dict.fromkeys(kind for _, _, ks in found[key] for kind in ks))
        methods = "; ".join(dict.fromkeys(method for _, method, _ in found[key]))
        rows.append(Row(key, f"{methods} (kinds: {kinds})", joined(origin for origin, _, _ in found[key])))
    return rows


def format_rows() -> list[Row]:
    from mmsoc.tasks.prediction_files import FORMATS

    return [Row(name, f.description, FORMATS.origin(name)) for name, f in FORMATS.items()]


def prompt_rows() -> list[Row]:
    """The prompt versions of the tasks, with the suites and number of tasks asked with each."""
    from mmsoc.tasks.registry import TASKS

    versions: dict[str, list[str]] = {}
    for task, spec in TASKS.items():
        versions.setdefault(spec.prompt_version, []).append(task)
    rows = []
    for version, tasks in versions.items():
        suites = ", ".join(dict.fromkeys(TASKS.get(t).suite for t in tasks))
        rows.append(Row(version, f"the prompts of {len(tasks)} tasks of {suites}", joined(map(TASKS.origin, tasks))))
    return rows


def desiq_rows(kind: str) -> Callable[[], list[Row]]:
    def rows() -> list[Row]:
        from desiq.commands import listing

        return listing.LISTS[kind]()

    return rows


LISTS: dict[str, Callable[[], list[Row]]] = {
    "models": model_rows,
    "tasks": task_rows,
    "suites": suite_rows,
    "kinds": kind_rows,
    "metrics": metric_rows,
    "formats": format_rows,
    **{kind: desiq_rows(kind) for kind in ("probes", "perturbations", "conditions")},
    "prompts": prompt_rows,
}


def list_help(lists: Iterable[str]) -> str:
    return f"What to list: {', '.join(lists)}."


@app.command("list")
def list_command(
    kind: str = typer.Argument(..., help=list_help(LISTS), metavar="KIND"),
    suite: str | None = option(None, "--suite", help="With tasks: only this suite's."),
) -> None:
    """List every name of one KIND (models, tasks, metrics, ...): its description and origin."""
    if kind not in LISTS:
        raise UsageError(unknown_message("list", kind, LISTS))
    if suite is not None and kind != "tasks":
        raise UsageError("--suite applies to mmsoc list tasks")
    print_rows(task_rows(suite) if kind == "tasks" else LISTS[kind]())


def prompt_help() -> str:
    """The ``--prompt`` help of the mmsoc commands: the prompt versions of the tasks (plugins too)."""
    from mmsoc.tasks.registry import TASKS

    versions = ", ".join(dict.fromkeys(spec.prompt_version for _, spec, _ in TASKS.known()))
    return f"Prompt version (default: each task's own: {versions}; `mmsoc list prompts`)."
