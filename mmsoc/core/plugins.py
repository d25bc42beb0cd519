"""Plugins: modules of other distributions that add entries to the registries.

A distribution names its plugin modules as entry points of the group ``mmsoc.plugins``
(``name = "package.module"``). A plugin module declares the constants a built-in module declares:
``MODEL`` (a ``ModelEntry``), ``TASKS`` (``TaskSpec`` tuple) and ``DATASET``, ``KIND``, ``GROUP``
(a ``MetricGroup``), ``FORMAT`` (an ``MCQAFormat`` or a ``PredictionFormat``, told apart by type),
``PROBE`` (a ``ProbeEntry``), ``PERTURBATION`` or ``PERTURBATIONS`` (``Perturbation`` records).
Plugin modules are imported once, on the first look-up of any registry; every registry then collects
from each of them what it collects from its own modules.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from importlib import metadata
from types import ModuleType

from mmsoc.core.io import UsageError
from mmsoc.core.startup import loading

ENTRY_POINTS = "mmsoc.plugins"
"""The entry-point group plugin distributions declare their modules in."""
CONSTANTS = ("MODEL", "TASKS", "DATASET", "KIND", "GROUP", "FORMAT", "PROBE", "PERTURBATION", "PERTURBATIONS")
"""The names a plugin module may declare; it must declare at least one."""
BUILT_IN = "built in"
"""The origin of an entry of mmsoc or desiq itself."""


class PluginError(UsageError):
    """A plugin that cannot be used (nothing declared, a name taken, a failed import): one line."""


@dataclass(frozen=True)
class Plugin:
    """One plugin module and the distribution that declares it."""

    distribution: str
    name: str
    """The module's dotted name (the entry point's value)."""
    module: ModuleType

    @property
    def origin(self) -> str:
        return f"plugin {self.distribution} ({self.name})"


def _load(entry: metadata.EntryPoint) -> Plugin:
    distribution = entry.dist.name if entry.dist is not None else entry.name
    name = entry.value.partition(":")[0].strip()
    try:
        with loading():
            module = importlib.import_module(name)
    except Exception as err:  # a plugin's own failure, whatever it is, is named by the plugin
        raise PluginError(f"plugin {distribution} ({name}) cannot be imported: {type(err).__name__}: {err}") from None
    if not any(hasattr(module, constant) for constant in CONSTANTS):
        raise PluginError(f"plugin {distribution} ({name}) declares none of {', '.join(CONSTANTS)}")
    return Plugin(distribution, name, module)


@functools.cache
def plugins() -> tuple[Plugin, ...]:
    """Every installed plugin module, imported once (by distribution, then module name)."""
    found = sorted(metadata.entry_points(group=ENTRY_POINTS), key=lambda e: (e.dist.name if e.dist else "", e.value))
    unique = {entry.value: entry for entry in found}  # a distribution found twice on the path counts once
    return tuple(_load(entry) for entry in unique.values())
