"""The blind-proof subset: the questions of a QA file that no blind probe or shortcut answers, read from
the ``per_item.jsonl`` of ``desiq probe --per-item`` (``desiq.per_item``), written in the file's own
format with a data card beside it (``<out>.card.md``)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desiq.formats import MCQAReading, detect_format, first_json_row, output_format, write_mcqa
from desiq.records import MCQAItem
from mmsoc.core.io import InputError, read_jsonl, write_text

FLAG_FIELDS = {"id": str, "qid": str, "blind_solvable": bool, "solved_by": list}


def is_per_item(path: str | os.PathLike) -> bool:
    """Whether a file looks like a ``per_item.jsonl`` (its first line has ``blind_solvable``)."""
    row = first_json_row(Path(path))
    return row is not None and "blind_solvable" in row


def read_flags(path: str | os.PathLike) -> dict[str, dict[str, Any]]:
    """The rows of a ``per_item.jsonl`` by question id; a malformed or repeated row is an InputError."""
    flags: dict[str, dict[str, Any]] = {}
    for line, row in read_jsonl(path):
        for key, expected in FLAG_FIELDS.items():
            if key not in row:
                raise InputError(path, "missing (is this the per_item.jsonl of `desiq probe --per-item`?)", line, key)
            if not isinstance(row[key], expected):
                raise InputError(path, f"expected {expected.__name__}, got {type(row[key]).__name__}", line, key)
        if row["id"] in flags:
            raise InputError(path, f"question {row['id']!r} appears twice", line, "id")
        flags[row["id"]] = row
    if not flags:
        raise InputError(path, "no rows")
    return flags


def check_coverage(items: Sequence[MCQAItem], flags: dict[str, dict[str, Any]], path: Path, source: str) -> None:
    """An InputError unless every item has a row with its qid (the flags were made from this file)."""
    missing = [item for item in items if item.id not in flags]
    if missing:
        raise InputError(
            path,
            f"{len(missing)} of the {len(items)} questions of {source} have no row (first: {missing[0].id}); "
            f"run `desiq probe --per-item` with --eval {source}",
        )
    other = next((item for item in items if flags[item.id]["qid"] != item.qid), None)
    if other is not None:
        raise InputError(
            path, f"row {other.id!r} has qid {flags[other.id]['qid']!r}, but {source} has {other.qid!r}", field="qid"
        )


@dataclass(frozen=True)
class Subset:
    source: Path
    format: str
    flag_files: tuple[Path, ...]
    items: list[MCQAItem]
    kept: list[MCQAItem]
    solved_by: dict[str, int]
    reading: MCQAReading | None = None


def blind_proof(
    source: Path, items: Sequence[MCQAItem], flag_files: Sequence[Path], reading: MCQAReading | None = None
) -> Subset:
    """The items that no row of any of ``flag_files`` calls blind-solvable, in their file's order; they are
    written in the format and layout of ``reading``, the reading of ``source`` (without one: in the format
    ``source`` is recognised as)."""
    every = [(path, read_flags(path)) for path in flag_files]
    for path, flags in every:
        check_coverage(items, flags, path, str(source))
    solved_by: dict[str, int] = {}
    for item in items:
        for name in dict.fromkeys(n for _, flags in every for n in flags[item.id]["solved_by"]):
            solved_by[name] = solved_by.get(name, 0) + 1
    kept = [item for item in items if not any(flags[item.id]["blind_solvable"] for _, flags in every)]
    fmt = output_format(reading) if reading is not None else detect_format(source).name
    return Subset(source, fmt, tuple(flag_files), list(items), kept, solved_by, reading)


def card_path(out: Path) -> Path:
    return out.with_name(out.name + ".card.md")


def card_markdown(subset: Subset, out: Path, command: str) -> str:
    n, k = len(subset.items), len(subset.kept)
    read_as = subset.reading.format if subset.reading is not None else subset.format
    videos = len({item.video for item in subset.kept})
    lines = [
        f"# Blind-proof subset of {subset.source.name}",
        "",
        f"**What.** The {k} questions of `{subset.source}` that no blind probe (options only, or question and "
        "options; each question scored by a probe trained without its video) and no answer-only shortcut "
        "(longest option, question overlap, nearest to the rewrite) answers, as flagged in "
        + ", ".join(f"`{p}`" for p in subset.flag_files)
        + " (`desiq probe --per-item`). Questions keep their order, fields and options.",
        f"**How it was made.** `{command}`.",
        f"**Format.** `{subset.format}`, "
        + ("as the source." if read_as == subset.format else f"the source's is `{read_as}`."),
        "",
        "## Sizes",
        f"{n} questions read, {n - k} blind-solvable, {k} kept ({100 * k / max(1, n):.1f}%), from {videos} videos.",
        "",
        "| solver | questions it answers |",
        "|---|---:|",
        *(f"| {name} | {count} |" for name, count in subset.solved_by.items()),
        "",
        "## Known biases",
        "Chosen by the answers: every kept question's correct option is one that none of these solvers picked. "
        "A model that shares their preferences scores below chance here, and a probe trained on the kept "
        "questions can learn to avoid those picks; the per-item summary in `probe.md` gives the blind probes "
        "retrained on the kept questions against chance. Compare a model on the full file and on this subset "
        "with `desiq table RUN --subset " + str(subset.flag_files[0]) + "`.",
        "",
    ]
    return "\n".join(lines)


def write_subset(subset: Subset, out: Path, command: str) -> Path:
    """Write the kept items in the source's format and layout, then the data card; returns the card's path."""
    write_mcqa(out, subset.kept, subset.format, subset.reading)
    card = card_path(out)
    write_text(card, card_markdown(subset, out, command))
    return card
