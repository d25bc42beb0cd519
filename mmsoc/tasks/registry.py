"""Every task of every suite, found by discovery: a suite's modules (and plugin modules) declare ``TASKS``
(TaskSpec tuples). A plugin's tasks join the suite their ``TaskSpec.suite`` names, a new one if need be."""

from __future__ import annotations

from collections.abc import Iterable

from mmsoc.core.registry import Registry, unknown_message
from mmsoc.tasks.kinds.base import TaskKind
from mmsoc.tasks.spec import TaskSpec

SUITES = {"mmsoc": "mmsoc.tasks.mmsoc", "socket": "mmsoc.tasks.socket", "supertweeteval": "mmsoc.tasks.supertweeteval"}
"""Suite name -> the package whose modules declare its tasks. Task ids of the MM-Soc suite are bare
names (``hate``); those of other suites are ``SUITE/NAME`` (``socket/sarc``), since their names overlap
(SocKET and SuperTweetEval both have ``tweet_emoji``)."""

TASKS: Registry[TaskSpec] = Registry("task")


def _collect(module: object) -> list[tuple[str, TaskSpec]]:
    return [(spec.id, spec) for spec in getattr(module, "TASKS", ())]


for _package in SUITES.values():
    TASKS.discover(_package, _collect)


def suites() -> tuple[str, ...]:
    """Every suite: the built-in ones, then those only plugin tasks name."""
    return _suites_of(TASKS.values())


def _suites_of(specs: Iterable[TaskSpec]) -> tuple[str, ...]:
    return tuple(dict.fromkeys([*SUITES, *(spec.suite for spec in specs)]))


def _check_suite(suite: str) -> None:
    if suite not in suites():
        raise KeyError(unknown_message("suite", suite, suites()))


def get_task(task_id: str) -> TaskSpec:
    return TASKS.get(task_id)


def kind_of(task: str | TaskSpec) -> TaskKind:
    """The handler of a task's kind."""
    from mmsoc.tasks.kinds import KINDS

    return KINDS.get((get_task(task) if isinstance(task, str) else task).kind)


def task_ids(suite: str = "mmsoc") -> tuple[str, ...]:
    """A suite's task ids in its own order."""
    _check_suite(suite)
    specs = [spec for _, spec in TASKS.items() if spec.suite == suite]
    return tuple(spec.id for spec in sorted(specs, key=lambda spec: spec.order))


def qualified(name: str, suite: str = "mmsoc") -> str:
    """The task id of ``name`` in ``suite``: ``sarc`` in ``socket`` is ``socket/sarc``; a full id stays.

    Raises ``KeyError`` naming an unknown task or one of another suite."""
    _check_suite(suite)
    task = name if suite == "mmsoc" or name.startswith(f"{suite}/") else f"{suite}/{name}"
    if task not in TASKS:
        known = [short_name(t) for t in task_ids(suite)]
        raise KeyError(unknown_message("task", name, known, f"in suite {suite!r}"))
    if get_task(task).suite != suite:
        raise KeyError(f"task {name!r} is not in suite {suite!r} (it is in {get_task(task).suite!r})")
    return task


def short_name(task_id: str) -> str:
    """A task's name within its suite (``socket/sarc`` -> ``sarc``)."""
    return task_id.split("/", 1)[1] if "/" in task_id else task_id


def parse_task_list(value: str, suite: str = "mmsoc") -> tuple[str, ...]:
    """``'all'`` or comma-separated task names of ``suite`` -> the task ids, in order, once each.

    Raises ``KeyError`` naming an unknown task and ``ValueError`` when none is given."""
    if value.strip() == "all":
        return task_ids(suite)
    tasks = tuple(dict.fromkeys(qualified(t.strip(), suite) for t in value.split(",") if t.strip()))
    if not tasks:
        raise ValueError("give at least one task")
    return tasks


def task_help(suite: str | None = None) -> str:
    """The ``--task`` help: the tasks of ``suite`` by name, or where to find them when no suite is fixed."""
    specs = [spec for _, spec, _ in TASKS.known()]
    if suite is None:
        return f"Comma-separated task names, or all (suites: {', '.join(_suites_of(specs))}; `mmsoc list tasks`)."
    names = ", ".join(short_name(s.id) for s in sorted((s for s in specs if s.suite == suite), key=lambda s: s.order))
    return f"Comma-separated task names of {suite}, or all: {names}."


def suite_help() -> str:
    """The ``--suite`` help: every suite (plugin suites too)."""
    return f"The suite: {', '.join(_suites_of(spec for _, spec, _ in TASKS.known()))}."
