"""The blocks a report is laid out in (headings, text, tables, figures, contents); both renderers walk them."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    anchor: str | None = None
    """Target of contents links (an HTML id; GitHub's heading slug, so report.md links work too)."""


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Table:
    caption: str
    header: list[str]
    rows: list[list[str]]


@dataclass(frozen=True)
class Figure:
    """One embedded figure: its title, a ``data:image/png;base64,...`` URI, and optionally its numbers as a
    :class:`Table` (shown in report.md in place of the picture, folded under it in report.html)."""

    title: str
    uri: str
    data: Table | None = None


@dataclass(frozen=True)
class Details:
    """A table folded away under a one-line summary (``<details>``, in report.md as in report.html)."""

    summary: str
    table: Table


@dataclass(frozen=True)
class Contents:
    """Links to the headings that carry an anchor: (level, text, anchor)."""

    entries: list[tuple[int, str, str]] = field(default_factory=list)


Block = Heading | Text | Table | Figure | Contents | Details


def fmt(value: object, digits: int = 3) -> str:
    """A number rounded for reading (3 decimals under 10, 2 under 100, 1 above; full precision stays in
    report.json); None and NaN as an em dash; anything else as text."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "\u2014"
    if isinstance(value, float):
        size = abs(value)
        return f"{value:.{digits if size < 10 else 2 if size < 100 else 1}f}"
    return str(value)


def slug(text: str, taken: set[str]) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces as hyphens, ``-1``, ``-2`` for repeats."""
    base = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-") or "section"
    anchor, k = base, 0
    while anchor in taken:
        k += 1
        anchor = f"{base}-{k}"
    taken.add(anchor)
    return anchor
