"""MCQA file formats, one module each, found by the ``FORMATS`` registry.

A format module declares ``FORMAT = MCQAFormat(...)``: its name, what its files look like
(``detect``), a reader to ``MCQAItem`` and, where items can be written back in it, a writer. Every writer
takes the path, the items and the reading they were made from (``MCQAReading``, or None): a format of one
fixed shape ignores the reading, the generic one (``mcqa``) writes each item into the row it was read from.
To add a format, add one module to this package.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desiq.perturbations import correct_markers, markers
from desiq.records import CORRECT, MCQAItem
from mmsoc.core.io import InputError, read_jsonl
from mmsoc.core.registry import Registry

if TYPE_CHECKING:
    from desiq.formats.mcqa_fields import Layout, Mapping

Writer = Callable[[Path, Iterable[MCQAItem], "MCQAReading | None"], None]
"""Write items atomically to a path, given the reading they were made from (None: made otherwise)."""


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
    write: Writer | None = None


FORMATS: Registry[MCQAFormat] = Registry("MCQA format")
FORMATS.discover("desiq.formats", lambda module: [(f.name, f) for f in [getattr(module, "FORMAT", None)] if f])


def read_mcqa(path: str | os.PathLike, format: str = "auto") -> list[MCQAItem]:
    """Read a QA file in ``format`` (a name in ``FORMATS``), or in the one format it looks like."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "file not found")
    return (detect_format(path) if format == "auto" else FORMATS[format]).read(path)


@dataclass
class MCQAReading:
    """What was read from one file: its format, the items, and for a generic file the mapping used, the
    decisions taken (how answers are read, ...), the rows skipped (each named by file, line, field) and
    the layout items are written back in."""

    path: Path
    format: str
    items: list[MCQAItem]
    rows: int
    mapping: Mapping | None = None
    decisions: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    layout: Layout | None = None


def read_source(
    path: str | os.PathLike,
    mapping: Mapping | None = None,
    media_root: str | os.PathLike | None = None,
    format: str = "auto",
) -> MCQAReading:
    """Read a QA file with what a data card tells of it; a ``mapping`` (or ``format="mcqa"``) reads it as
    a generic multiple-choice file (``desiq.formats.mcqa``)."""
    from desiq.formats.mcqa import read_table_mcqa

    path = Path(path)
    if not path.is_file():
        raise InputError(path, "file not found")
    fmt = FORMATS["mcqa"] if mapping is not None else detect_format(path) if format == "auto" else FORMATS[format]
    if fmt.name == "mcqa":
        return read_table_mcqa(path, mapping, media_root)
    items = fmt.read(path)
    return MCQAReading(path, fmt.name, items, len(items))


def write_mcqa(
    path: str | os.PathLike, items: Iterable[MCQAItem], format: str = "siq2", reading: MCQAReading | None = None
) -> None:
    """Write items atomically in ``format``, in the layout of ``reading`` (the file they were made from)
    where the format follows it."""
    fmt = FORMATS[format]
    if fmt.write is None:
        writable = [f.name for f in FORMATS.values() if f.write is not None]
        raise KeyError(f"format {format!r} is read-only; write in {', '.join(writable)}")
    fmt.write(Path(path), items, reading)


def output_format(reading: MCQAReading) -> str:
    """The format items made from ``reading`` are written in: its own where writable, else ``siq2``."""
    return reading.format if FORMATS[reading.format].write is not None else "siq2"


def write_like(path: str | os.PathLike, items: Iterable[MCQAItem], reading: MCQAReading) -> str:
    """Write items made from ``reading`` in its format and layout (``output_format``); returns the format."""
    format = output_format(reading)
    write_mcqa(path, items, format, reading)
    return format


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
