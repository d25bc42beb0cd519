"""Every task of every suite, found by discovery: a suite's modules declare ``TASKS`` (TaskSpec tuples)."""

from __future__ import annotations

from mmsoc.core.registry import Registry
from mmsoc.tasks.kinds.base import TaskKind
from mmsoc.tasks.spec import TaskSpec

SUITES = {"mmsoc": "mmsoc.tasks.mmsoc", "socket": "mmsoc.tasks.socket", "supertweeteval": "mmsoc.tasks.supertweeteval"}
"""Suite name -> the package whose modules declare its tasks. Task ids of the MM-Soc suite are bare
names (``hate``); those of other suites are ``SUITE/NAME`` (``socket/sarc``), since their names overlap
(SocKET and SuperTweetEval both have ``tweet_emoji``)."""

TASKS: Registry[TaskSpec] = Registry("task")
for _package in SUITES.values():
    TASKS.discover(_package, lambda module: [(spec.id, spec) for spec in getattr(module, "TASKS", ())])


def get_task(task_id: str) -> TaskSpec:
    return TASKS.get(task_id)


def kind_of(task: str | TaskSpec) -> TaskKind:
    """The handler of a task's kind."""
    from mmsoc.tasks.kinds import KINDS

    return KINDS.get((get_task(task) if isinstance(task, str) else task).kind)


def task_ids(suite: str = "mmsoc") -> tuple[str, ...]:
    """A suite's task ids in its own order."""
    if suite not in SUITES:
        raise KeyError(f"unknown suite {suite!r}; known: {', '.join(SUITES)}")
    specs = [spec for _, spec in TASKS.items() if spec.suite == suite]
    return tuple(spec.id for spec in sorted(specs, key=lambda spec: spec.order))


def qualified(name: str, suite: str = "mmsoc") -> str:
    """The task id of ``name`` in ``suite``: ``sarc`` in ``socket`` is ``socket/sarc``; a full id stays.

    Raises ``KeyError`` naming an unknown task or one of another suite."""
    if suite not in SUITES:
        raise KeyError(f"unknown suite {suite!r}; known: {', '.join(SUITES)}")
    task = name if suite == "mmsoc" or name.startswith(f"{suite}/") else f"{suite}/{name}"
    if task not in TASKS:
        names = ", ".join(short_name(t) for t in task_ids(suite))
        raise KeyError(f"unknown task {name!r} in suite {suite!r}; known: {names}")
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
