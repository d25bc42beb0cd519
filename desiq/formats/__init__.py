"""MCQA file formats, one module each, found by the ``FORMATS`` registry.

A format module declares ``FORMAT = MCQAFormat(...)``: its name, what its files look like
(``detect``), a reader to ``MCQAItem`` and, where items can be written back in it, a writer. To add a
format, add one module to this package.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desiq.perturbations import correct_markers, markers
from desiq.records import CORRECT, MCQAItem
from mmsoc.core.io import InputError, read_jsonl
from mmsoc.core.registry import Registry


@dataclass(frozen=True)
class MCQAFormat:
    """A file format of multiple-choice questions."""

    name: str
    description: str
    kinds: frozenset[str]
    """The option kinds its files carry as released (one of them is ``corr``)."""
    detect: Callable[[Path], bool]
    """Whether a file looks like this format (for ``format="auto"``)."""
    read: Callable[[Path], list[MCQAItem]]
    write: Callable[[Path, Iterable[MCQAItem]], None] | None = None


FORMATS: Registry[MCQAFormat] = Registry("MCQA format")
FORMATS.discover("desiq.formats", lambda module: [(f.name, f) for f in [getattr(module, "FORMAT", None)] if f])


def read_mcqa(path: str | os.PathLike, format: str = "auto") -> list[MCQAItem]:
    """Read a QA file in ``format`` (a name in ``FORMATS``), or in the one format it looks like."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "file not found")
    return (detect_format(path) if format == "auto" else FORMATS[format]).read(path)


def write_mcqa(path: str | os.PathLike, items: Iterable[MCQAItem], format: str = "siq2") -> None:
    """Write items atomically in ``format``."""
    fmt = FORMATS[format]
    if fmt.write is None:
        writable = [f.name for f in FORMATS.values() if f.write is not None]
        raise KeyError(f"format {format!r} is read-only; write in {', '.join(writable)}")
    fmt.write(Path(path), items)


def detect_format(path: Path) -> MCQAFormat:
    """The one format whose ``detect`` accepts ``path``; else an InputError saying why."""
    found = [f for f in FORMATS.values() if f.detect(path)]
    if len(found) == 1:
        return found[0]
    first = next(read_jsonl(path), None)  # a file that is not JSON Lines fails here, located
    if first is None:
        raise InputError(path, "no questions in file")
    line, row = first
    known = "; ".join(f"{f.name}: {f.description}" for f in FORMATS.values())
    what = "no known MCQA format" if not found else f"several formats ({', '.join(f.name for f in found)})"
    raise InputError(path, f"fields {sorted(row)} match {what} (known: {known})", line=line)


def first_json_row(path: Path) -> dict[str, Any] | None:
    """The first non-blank line of a JSON Lines file as an object (None if it is not one)."""
    try:
        first = next(read_jsonl(path, skip_bad=True), None)  # reads (and decodes) the first line only
    except (OSError, InputError):
        return None
    return first[1] if first is not None and isinstance(first[1], dict) else None


def require_field(obj: dict[str, Any], key: str, kind: type | tuple[type, ...], path: str, line: int) -> Any:
    """``obj[key]`` if present and of ``kind``, else an InputError naming file, line and field."""
    if key not in obj:
        raise InputError(path, "missing", line=line, field=key)
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise InputError(
            path, f"expected {getattr(kind, '__name__', kind)}, got {type(value).__name__}", line=line, field=key
        )
    return value


def known_kinds() -> frozenset[str]:
    """Option kinds a QA file may carry: every format's released kinds and every perturbation marker."""
    return frozenset().union(*(f.kinds for f in FORMATS.values())) | markers()


def correct_kinds() -> frozenset[str]:
    """Option kinds that mark the option counted as correct (the released one or a substitute)."""
    return frozenset({CORRECT}) | correct_markers()
