"""Task kinds, one handler module each; every module (and a plugin module) declares ``KIND`` (see
``base.TaskKind``)."""

from __future__ import annotations

from mmsoc.core.registry import Registry
from mmsoc.tasks.kinds.base import TaskKind

KINDS: Registry[TaskKind] = Registry("task kind")
KINDS.discover("mmsoc.tasks.kinds", lambda module: [(module.KIND.name, module.KIND)] if hasattr(module, "KIND") else [])
