"""The data card written beside every QA file ``desiq perturb`` and ``desiq build`` write (``OUT.card.md``):
what was read (file, format, digest, the field mapping and the decisions taken), what was made from it,
the counts, and every row that was skipped (named by file, line and field)."""

from __future__ import annotations

from collections.abc import Mapping as Counts
from pathlib import Path

from desiq.formats import MCQAReading
from mmsoc.core.io import write_text
from mmsoc.core.markdown import md_text
from mmsoc.core.paths import file_sha256


def card_path(out: Path) -> Path:
    return out.with_name(out.name + ".card.md")


def card_markdown(out: Path, reading: MCQAReading, made: str, counts: Counts[str, object]) -> str:
    """The card of ``out``, made by ``made`` (the command in words) from ``reading``."""
    lines = [
        f"# {md_text(out.name)}",
        "",
        f"**Made by.** {md_text(made)}",
        "",
        "## Read",
        f"- file: {md_text(reading.path.name)} (format {reading.format}), sha256 {file_sha256(reading.path)}",
        f"- rows: {reading.rows}; questions read: {len(reading.items)}; rows skipped: {len(reading.skipped)}",
    ]
    if reading.mapping is not None:
        lines += ["", "## Field mapping", "", "| field | column |", "|---|---|"]
        lines += [f"| {key} | {md_text(column)} |" for key, column in reading.mapping.describe().items()]
    if reading.decisions:
        lines += ["", "## Decisions", *(f"- {md_text(d)}" for d in reading.decisions)]
    lines += ["", "## Counts", *(f"- {md_text(key)}: {value}" for key, value in counts.items())]
    lines += ["", "## Skipped rows", *(f"- {md_text(why)}" for why in reading.skipped or ["none"])]
    return "\n".join([*lines, ""])


def write_card(out: Path, reading: MCQAReading, made: str, counts: Counts[str, object]) -> Path:
    """Write ``OUT.card.md`` atomically; returns its path."""
    path = card_path(out)
    write_text(path, card_markdown(out, reading, made, counts))
    return path
