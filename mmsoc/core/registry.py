"""A registry of named things (models, tasks, metrics, formats, probes), collected on first look-up.

Packages of entries register themselves with :meth:`Registry.discover`, which imports every module
of a package and collects what each one declares, so adding one is adding one file (a module imports
nothing heavy at import time: what is heavy is imported by the functions that use it). The same
collection then runs over every plugin module (:mod:`mmsoc.core.plugins`), and each entry keeps its
origin: ``built in`` or ``plugin DIST (module)``.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import pkgutil
from collections.abc import Callable, Iterable, Iterator
from typing import Generic, TypeVar

from mmsoc.core.names import shown
from mmsoc.core.plugins import BUILT_IN, PluginError, plugins

T = TypeVar("T")
Collect = Callable[[object], Iterable[tuple[str, T]]]
"""What a registry takes from one module: (name, entry) pairs (none when it declares nothing the registry holds)."""


def nearest(name: str, known: Iterable[str]) -> list[str]:
    """The known names closest to ``name``, closest first (a match but for case first of all)."""
    known = list(known)
    same = [k for k in known if k.lower() == name.lower() and k != name]
    close = difflib.get_close_matches(name.lower(), [k.lower() for k in known], n=3, cutoff=0.6)
    by_lower = {k.lower(): k for k in known}
    return list(dict.fromkeys([*same, *(by_lower[c] for c in close if by_lower[c] != name)]))


def unknown_message(noun: str, name: str, known: Iterable[str], where: str = "") -> str:
    """``unknown NOUN 'NAME'[ WHERE]; nearest: A; known: A, B, C`` (no nearest part when nothing is close)."""
    known = list(known)
    close = nearest(name, known)
    hint = f"; nearest: {', '.join(close)}" if close else ""
    return f"unknown {noun} {shown(name)}{' ' + where if where else ''}{hint}; known: {', '.join(known) or 'none'}"


class Registry(Generic[T]):
    """Name -> entry, in registration order; an unknown name raises KeyError naming the nearest known ones.

    Entries are registered as built in; on the first look-up the registry imports the packages given to
    :meth:`discover`, then collects from every plugin module with the first ``collect`` it was given (or
    the one given to :meth:`plugins`). A plugin name that is already taken is a :class:`PluginError`."""

    def __init__(self, noun: str, entries: dict[str, T] | None = None):
        self.noun = noun
        """What one entry is, in words (``model backend``, ``task kind``), for messages."""
        self._entries: dict[str, T] = {}
        self._origins: dict[str, str] = {}
        self._discovered: list[tuple[str, Collect[T]]] = []
        self._plugin_collect: Collect[T] | None = None
        self._plugins_pending = True
        for name, entry in (entries or {}).items():
            self.register(name, entry)

    def register(self, name: str, entry: T) -> None:
        """Add ``entry`` under ``name``."""
        if name in self._entries:
            raise ValueError(f"{self.noun} {name!r} is registered twice")
        self._entries[name] = entry
        self._origins[name] = BUILT_IN

    def discover(self, package: str, collect: Collect[T]) -> None:
        """Register, on first look-up, what ``collect(module)`` yields for every module of ``package``
        (and, for the first package, for every plugin module)."""
        self._discovered.append((package, collect))
        if self._plugin_collect is None:
            self._plugin_collect = collect

    def plugins(self, collect: Collect[T]) -> None:
        """Register, on first look-up, what ``collect(module)`` yields for every plugin module."""
        self._plugin_collect = collect

    def _load_discovered(self) -> None:
        while self._discovered:
            package, collect = self._discovered.pop(0)
            root = importlib.import_module(package)
            for info in sorted(pkgutil.iter_modules(root.__path__), key=lambda m: m.name):
                if info.name.startswith("_"):
                    continue
                module = importlib.import_module(f"{package}.{info.name}")
                for name, entry in collect(module):
                    self.register(name, entry)
        if self._plugins_pending and self._plugin_collect is not None:
            self._add_plugins(self._plugin_collect)

    def _add_plugins(self, collect: Collect[T]) -> None:
        """Every plugin module's entries, all or none (a failed load fails again at the next look-up)."""
        found = [(name, entry, plugin.origin) for plugin in plugins() for name, entry in collect(plugin.module)]
        origins = dict(self._origins)
        for name, _, origin in found:
            if name in origins:
                taken = "built in" if origins[name] == BUILT_IN else f"declared by {origins[name]}"
                raise PluginError(f"{origin} declares {self.noun} {name!r}, which is {taken}")
            origins[name] = origin
        self._entries.update({name: entry for name, entry, _ in found})
        self._origins = origins
        self._plugins_pending = False

    def names(self) -> tuple[str, ...]:
        self._load_discovered()
        return tuple(self._entries)

    def origin(self, name: str) -> str:
        """Where ``name`` comes from: ``built in`` or ``plugin DIST (module)``."""
        self._load_discovered()
        return self._origins[name]

    def __contains__(self, name: object) -> bool:
        return name in self.names()

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def get(self, name: str) -> T:
        """The entry registered as ``name``."""
        self._load_discovered()
        try:
            return self._entries[name]
        except KeyError:
            raise KeyError(unknown_message(self.noun, name, self._entries)) from None

    def known(self) -> list[tuple[str, T, str]]:
        """(name, entry, origin) of every entry, for help texts built at import time: as :meth:`items`,
        but with a broken plugin the built-in entries alone (the command reports the plugin when it runs)."""
        with contextlib.suppress(PluginError):
            self._load_discovered()
        return [(name, self._entries[name], self._origins[name]) for name in list(self._entries)]

    def __getitem__(self, name: str) -> T:
        return self.get(name)

    def items(self) -> list[tuple[str, T]]:
        return [(name, self.get(name)) for name in self.names()]

    def values(self) -> list[T]:
        return [self.get(name) for name in self.names()]
