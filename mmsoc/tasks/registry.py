"""Every task of every suite, found by discovery: a suite's modules declare ``TASKS`` (TaskSpec tuples)."""

from __future__ import annotations

from mmsoc.core.registry import Registry
from mmsoc.tasks.kinds.base import TaskKind
from mmsoc.tasks.spec import TaskSpec

SUITES = {"mmsoc": "mmsoc.tasks.mmsoc"}
"""Suite name -> the package whose modules declare its tasks."""

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


def parse_task_list(value: str, suite: str = "mmsoc") -> tuple[str, ...]:
    """``'all'`` or comma-separated task ids -> the task ids, in order, once each.

    Raises ``KeyError`` naming an unknown task and ``ValueError`` when none is given."""
    if value.strip() == "all":
        return task_ids(suite)
    tasks = tuple(dict.fromkeys(t.strip() for t in value.split(",") if t.strip()))
    for task in tasks:
        get_task(task)
    if not tasks:
        raise ValueError("give at least one task")
    return tasks
