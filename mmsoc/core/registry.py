"""A registry of named things (models, tasks, metrics, formats, probes) whose entries load lazily.

An entry is either the object itself or a ``"package.module:attribute"`` string, imported on first
use, as lm-evaluation-harness registers its models: listing names never imports heavy modules.
Packages of plugins register themselves with :meth:`Registry.discover`, which imports every module
of a package and collects what each one declares, so adding a plugin is adding one file.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable, Iterator
from typing import Generic, TypeVar

from mmsoc.core.startup import loading

T = TypeVar("T")


def load_target(target: str) -> object:
    """The object a ``"package.module:attribute"`` string names (imported with collection paused)."""
    module, _, attribute = target.partition(":")
    with loading():
        value: object = importlib.import_module(module)
    for part in attribute.split(".") if attribute else ():
        value = getattr(value, part)
    return value


class Registry(Generic[T]):
    """Name -> entry, in registration order; an unknown name raises KeyError listing the known ones."""

    def __init__(self, kind: str, entries: dict[str, T | str] | None = None):
        self.kind = kind
        self._entries: dict[str, T | str] = dict(entries or {})
        self._discovered: list[tuple[str, Callable[[object], Iterable[tuple[str, T]]]]] = []

    def register(self, name: str, entry: T | str) -> None:
        """Add ``entry`` (an object or a ``module:attribute`` string) under ``name``."""
        if name in self._entries:
            raise ValueError(f"{self.kind} {name!r} is registered twice")
        self._entries[name] = entry

    def discover(self, package: str, collect: Callable[[object], Iterable[tuple[str, T]]]) -> None:
        """Register, on first look-up, what ``collect(module)`` yields for every module of ``package``."""
        self._discovered.append((package, collect))

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

    def names(self) -> tuple[str, ...]:
        self._load_discovered()
        return tuple(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self.names()

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def get(self, name: str) -> T:
        """The entry registered as ``name`` (imported now if it was given as a string)."""
        self._load_discovered()
        try:
            entry = self._entries[name]
        except KeyError:
            raise KeyError(f"unknown {self.kind} {name!r}; known: {', '.join(self._entries) or 'none'}") from None
        if isinstance(entry, str) and ":" in entry:
            entry = self._entries[name] = load_target(entry)  # type: ignore[assignment]
        return entry  # type: ignore[return-value]

    def __getitem__(self, name: str) -> T:
        return self.get(name)

    def items(self) -> list[tuple[str, T]]:
        return [(name, self.get(name)) for name in self.names()]

    def values(self) -> list[T]:
        return [self.get(name) for name in self.names()]
