"""MCQA file formats, one module each, found by the ``MCQA_FORMATS`` registry.

A format module declares ``FORMAT = MCQAFormat(...)``: its name, what its files look like
(``detect``), a reader to ``MCQAItem`` and, where items can be written back in it, a writer. Every writer
takes the path, the items and the reading they were made from (``MCQAReading``, or None): a format of one
fixed shape ignores the reading, the generic one (``mcqa``) writes each item into the row it was read from.
A writable format names the suffixes its files may carry (``suffixes``); an output whose suffix no
format writes (``.txt``) takes any. To add a format, add one module to this package.

Commands read with ``--format NAME`` (default ``auto``: the one format a file looks like) and write with
``--out-format NAME`` (``resolve_out_format``: by default the input's own format where the output's suffix
fits it, else the format the suffix names); ``read_note`` and ``write_note`` say in one line what was read
and written.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desiq.perturbations import correct_markers, markers
from desiq.records import CORRECT, MCQAItem
from mmsoc.core.io import InputError, UsageError, read_jsonl
from mmsoc.core.registry import Registry

if TYPE_CHECKING:
    from desiq.formats.mcqa_fields import Layout, Mapping

Writer = Callable[[Path, Iterable[MCQAItem], "MCQAReading | None"], None]
"""Write items atomically to a path, given the reading they were made from (None: made otherwise)."""
GENERIC = "mcqa"
"""The format that reads any multiple-choice file through a field mapping and writes every suffix."""


@dataclass(frozen=True)
class MCQAFormat:
    """A file format of multiple-choice questions."""

    name: str
    description: str
    markers: frozenset[str]
    """The option markers its files carry as released (one of them is ``corr``)."""
    detect: Callable[[Path], bool]
    """Whether a file looks like this format (for ``format="auto"``)."""
    read: Callable[[Path], list[MCQAItem]]
    write: Writer | None = None
    suffixes: tuple[str, ...] = ()
    """The suffixes its writer's files may carry (lower case, with the dot)."""
    label: Callable[[Path, MCQAReading | None], str] | None = None
    """A file's shape in a few words (``Social-IQ 2.0 JSON Lines``, ``CSV``) for notes, given the file and
    the reading its items came from; None: the description."""
    row: Callable[[MCQAItem], dict[str, Any]] | None = None
    """This format's row of an item, where it is one flat record: the generic writer lays out items read
    in this format in these columns (a Social-IQ file written as CSV keeps Social-IQ's columns)."""

    def title(self, path: Path, reading: MCQAReading | None = None) -> str:
        return self.label(path, reading) if self.label is not None else self.description


MCQA_FORMATS: Registry[MCQAFormat] = Registry("MCQA format")
MCQA_FORMATS.discover(
    "desiq.formats",
    lambda module: [(f.name, f) for f in [getattr(module, "FORMAT", None)] if isinstance(f, MCQAFormat)],
)


def read_mcqa(path: str | os.PathLike, format: str = "auto") -> list[MCQAItem]:
    """Read a QA file in ``format`` (a name in ``MCQA_FORMATS``), or in the one format it looks like."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "file not found")
    return format_of(path, format).read(path)


def format_of(path: Path, format: str = "auto", mapping: Mapping | None = None) -> MCQAFormat:
    """The format ``path`` is read in: ``format`` when named (the file must look like it, but for the
    generic ``mcqa``, whose reader says what it misses), else the one it looks like; a ``mapping`` reads
    it as ``mcqa``."""
    if format == "auto":
        return MCQA_FORMATS[GENERIC] if mapping is not None else detect_format(path)
    fmt = MCQA_FORMATS[format]  # an unknown name: a KeyError naming the nearest and the known ones
    if fmt.name == GENERIC:
        return fmt
    if mapping is not None:
        raise UsageError(f"--fields and --schema map a generic file's columns (--format {GENERIC}), not {format}")
    if not fmt.detect(path):
        raise InputError(path, f"does not look like --format {fmt.name}, which expects {fmt.description}")
    return fmt


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
    """Read a QA file with what a data card tells of it, in ``format`` (``auto``: the one it looks like;
    see ``format_of``); a ``mapping`` (or ``format="mcqa"``) reads it as a generic multiple-choice file
    (``desiq.formats.mcqa``)."""
    from desiq.formats.mcqa import read_table_mcqa

    path = Path(path)
    if not path.is_file():
        raise InputError(path, "file not found")
    fmt = format_of(path, format, mapping)
    if fmt.name == GENERIC:
        return read_table_mcqa(path, mapping, media_root)
    items = fmt.read(path)
    return MCQAReading(path, fmt.name, items, len(items))


def write_mcqa(
    path: str | os.PathLike, items: Iterable[MCQAItem], format: str = "siq2", reading: MCQAReading | None = None
) -> None:
    """Write items atomically in ``format``, in the layout of ``reading`` (the file they were made from)
    where the format follows it."""
    fmt = MCQA_FORMATS[format]
    if fmt.write is None:
        writable = [f.name for f in MCQA_FORMATS.values() if f.write is not None]
        raise KeyError(f"format {format!r} is read-only; write in {', '.join(writable)}")
    check_suffix(Path(path), fmt, reading)
    fmt.write(Path(path), items, reading)


def check_suffix(out: Path, fmt: MCQAFormat, reading: MCQAReading | None = None) -> None:
    """A UsageError when ``out`` has a suffix that other formats write and ``fmt`` does not (JSON Lines
    into ``x.csv``); a suffix no format writes (``.txt``) fits any format."""
    suffix = out.suffix.lower()
    named = [f.name for f in writable_formats() if suffix in f.suffixes]
    if named and suffix not in fmt.suffixes:
        raise UsageError(
            f"--out {out}: {fmt.name} writes {fmt.title(out, reading)} ({', '.join(fmt.suffixes)}), not {suffix}; "
            f"name the file so, or pass --out-format {named[0]}"
        )


def output_format(reading: MCQAReading) -> str:
    """The format items made from ``reading`` are written in: its own where writable, else ``siq2``."""
    return reading.format if MCQA_FORMATS[reading.format].write is not None else "siq2"


def writable_formats() -> list[MCQAFormat]:
    return [f for f in MCQA_FORMATS.values() if f.write is not None]


def resolve_out_format(out: Path, requested: str | None, reading: MCQAReading | None) -> str:
    """The format ``--out`` is written in: ``requested`` (``--out-format``; None or ``auto``: chosen), which
    must be writable and fit the suffix of ``out``; else the input's own (``output_format``) where the suffix
    fits it, else the format the suffix names. A suffix no format writes (``.txt``) fits any format."""
    if requested not in (None, "auto"):
        fmt = MCQA_FORMATS[requested]
        if fmt.write is None:
            writable = ", ".join(f.name for f in writable_formats())
            raise UsageError(f"--out-format {fmt.name} is read-only: write in {writable}")
        check_suffix(out, fmt, reading)
        return fmt.name
    suffix = out.suffix.lower()
    named = [f for f in writable_formats() if suffix in f.suffixes]
    own = output_format(reading) if reading is not None else GENERIC
    return own if not named or suffix in MCQA_FORMATS[own].suffixes else named[0].name


def write_like(
    path: str | os.PathLike, items: Iterable[MCQAItem], reading: MCQAReading, format: str | None = None
) -> str:
    """Write items made from ``reading`` in ``format`` (``--out-format``; None: chosen by
    ``resolve_out_format``), in the reading's layout; returns the format written."""
    chosen = resolve_out_format(Path(path), format, reading)
    write_mcqa(path, items, chosen, reading)
    return chosen


def read_note(reading: MCQAReading) -> str:
    """One line on what was read: ``read qa_val.json: siq2 (Social-IQ 2.0 JSON Lines), 1,234 questions``."""
    fmt = MCQA_FORMATS[reading.format]
    skipped = f" ({len(reading.skipped):,} rows skipped)" if reading.skipped else ""
    shape = fmt.title(reading.path, reading)
    return f"read {reading.path}: {fmt.name} ({shape}), {len(reading.items):,} questions{skipped}"


def write_note(path: str | os.PathLike, format: str, reading: MCQAReading | None = None) -> str:
    """One line on what was written: ``wrote x.csv: mcqa (CSV)``."""
    fmt = MCQA_FORMATS[format]
    return f"wrote {path}: {fmt.name} ({fmt.title(Path(path), reading)})"


def detect_format(path: Path) -> MCQAFormat:
    """The one format whose ``detect`` accepts ``path``; else an InputError saying why."""
    found = [f for f in MCQA_FORMATS.values() if f.detect(path)]
    if len(found) == 1:
        return found[0]
    first = next(read_jsonl(path), None)  # a file that is not JSON Lines fails here, located
    if first is None:
        raise InputError(path, "no questions in file")
    line, row = first
    known = "; ".join(f"{f.name}: {f.description}" for f in MCQA_FORMATS.values())
    what = "no known MCQA format" if not found else f"several formats ({', '.join(f.name for f in found)})"
    raise InputError(path, f"fields {sorted(row)} match {what} (known: {known})", line=line)


def first_json_row(path: Path) -> dict[str, Any] | None:
    """The first non-blank line of a JSON Lines file as an object (None if it is not one)."""
    try:
        first = next(read_jsonl(path, skip_bad=True), None)  # reads (and decodes) the first line only
    except (OSError, InputError):
        return None
    return first[1] if first is not None and isinstance(first[1], dict) else None


def require_field(obj: dict[str, Any], key: str, expected: type | tuple[type, ...], path: str, line: int) -> Any:
    """``obj[key]`` if present and of type ``expected``, else an InputError naming file, line and field."""
    if key not in obj:
        raise InputError(path, "missing", line=line, field=key)
    value = obj[key]
    if not isinstance(value, expected) or isinstance(value, bool):
        raise InputError(
            path,
            f"expected {getattr(expected, '__name__', expected)}, got {type(value).__name__}",
            line=line,
            field=key,
        )
    return value


def known_markers() -> frozenset[str]:
    """Option markers a QA file may carry: every format's released markers and every perturbation marker."""
    return frozenset().union(*(f.markers for f in MCQA_FORMATS.values())) | markers()


def correct_option_markers() -> frozenset[str]:
    """Option markers that mark the option counted as correct (the released one or a substitute)."""
    return frozenset({CORRECT}) | correct_markers()
