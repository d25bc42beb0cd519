"""Task kinds, one handler module each; every module (and a plugin module) declares ``KIND``, an instance of
a subclass of ``base.TaskKind`` that overrides only what differs from the defaults there."""

from __future__ import annotations

from collections.abc import Sequence

from mmsoc.core.registry import Registry
from mmsoc.tasks.kinds.base import TaskKind
from mmsoc.tasks.spec import TaskSpec

KINDS: Registry[TaskKind] = Registry("task kind")
KINDS.discover("mmsoc.tasks.kinds", lambda module: [(module.KIND.name, module.KIND)] if hasattr(module, "KIND") else [])


def require_kind(spec: TaskSpec, kinds: Sequence[str], scorer: str) -> None:
    """ValueError unless ``spec``'s kind is one of ``kinds`` (what ``scorer`` scores)."""
    if spec.kind not in kinds:
        raise ValueError(f"task {spec.id!r} is a {spec.kind} task; {scorer} scores {' or '.join(kinds)} tasks")
