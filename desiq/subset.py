"""The blind-proof subset of a QA file, written in the file's own format with a data card beside it
(``<out>.card.md``) that gives every shortcut family's accuracy on the kept questions. Three methods:

- ``balanced`` (the default): the most questions on which every shortcut, every blind probe of the
  ``per_item.jsonl`` files (``desiq probe --per-item``, ``desiq.per_item``) and every gold position is
  within a tolerance of chance, the options then reordered so the correct one sits at each position
  equally often (``desiq.balance``); a blind probe retrained on the kept questions is brought as near
  chance as the data allows by the same selection, a few rounds;
- ``aflite``: the adversarial filter of Le Bras et al. (``desiq.aflite``), options as they are;
- ``unsolved``: the questions no row of the ``per_item.jsonl`` files calls ``blind_solvable`` (chosen by
  their answers: the selecting probes end below chance there).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from desiq import aflite
from desiq.balance import (
    SELECTING,
    Family,
    FamilyCheck,
    check,
    position_families,
    probe_families,
    reorder,
    retrained_families,
    select,
    shortcut_families,
)
from desiq.formats import MCQAReading, detect_format, first_json_row, output_format, write_mcqa
from desiq.records import MCQAItem
from mmsoc.core.io import InputError, UsageError, read_jsonl, write_text
from mmsoc.core.markdown import md_text

if TYPE_CHECKING:
    from desiq.probes import ProbeBackend

METHODS = ("balanced", "aflite", "unsolved")
ROUNDS = 3
"""Selections at most that bring a retrained probe back within the tolerance (``balanced``)."""
FLAG_FIELDS = {"id": str, "qid": str, "predictions": dict, "blind_solvable": bool, "solved_by": list}


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
class Settings:
    """What ``desiq subset`` asks of the selection."""

    method: str = "balanced"
    tolerance: float = 1.5
    """Accuracy points either side of chance (``balanced``)."""
    min_keep: int = 100
    seed: int = 0


@dataclass(frozen=True)
class Subset:
    source: Path
    format: str
    flag_files: tuple[Path, ...]
    items: list[MCQAItem]
    kept: list[MCQAItem]
    """As written: for ``balanced``, with their options reordered."""
    settings: Settings
    checks: list[FamilyCheck] = field(default_factory=list)
    rounds: int = 0
    """``balanced``: selections made again for a retrained probe; ``aflite``: its filtering rounds."""
    reading: MCQAReading | None = None

    @property
    def reordered(self) -> bool:
        return self.settings.method == "balanced"


@dataclass(frozen=True)
class FlagFile:
    """A ``per_item.jsonl`` read: its rows by question id."""

    path: Path
    rows: dict[str, dict[str, Any]]


def flag_picks(items: Sequence[MCQAItem], every: Sequence[FlagFile]) -> dict[str, dict[str, int]]:
    """Per blind probe of the flag files: question id -> its cross-fitted pick."""
    picks: dict[str, dict[str, int]] = {}
    for flags in every:
        for name in dict.fromkeys(n for row in flags.rows.values() for n in row["predictions"]):
            key = f"{name} ({flags.path.name})" if name in picks else name
            picks[key] = {item.id: flags.rows[item.id]["predictions"].get(name, -1) for item in items}
    return picks


def balanced_keep(
    items: Sequence[MCQAItem], picks: dict[str, dict[str, int]], backend: ProbeBackend | None, settings: Settings
) -> tuple[np.ndarray | None, int]:
    """The balanced selection (``desiq.balance.select``) over every shortcut and flagged probe; then, while
    ``backend`` retrained on the kept questions is outside the tolerance, the selection again on the kept
    questions with its cross-fitted hits as one more family (``ROUNDS`` at most; the last that succeeds
    stays). Returns the mask (None: no subset) and the rounds made again."""
    from desiq.per_item import BLIND_INPUTS

    tolerance = settings.tolerance / 100
    families = shortcut_families(items) + probe_families(items, picks)
    keep = select(items, families, tolerance, settings.min_keep)
    rounds = 0
    while keep is not None and backend is not None and rounds < ROUNDS:
        where = np.flatnonzero(keep)
        kept = [items[n] for n in where.tolist()]
        if len({item.video for item in kept}) < 2:
            break
        retrained = retrained_families(backend, kept, BLIND_INPUTS, settings.seed)
        off = [f for f in retrained if not check(f, kept, tolerance).within]
        if not off:
            break
        for f in off:
            hits = np.full(len(items), np.nan)
            hits[where] = f.hits
            families.append(Family(f"{f.name}, round {rounds + 1}", f.category, hits))
        again = select(kept, [f.on(where) for f in families], tolerance, settings.min_keep)
        if again is None:
            break
        keep = np.zeros(len(items), dtype=bool)
        keep[where[again]] = True
        rounds += 1
    return keep, rounds


def family_checks(
    kept: Sequence[MCQAItem],
    as_read: Sequence[MCQAItem],
    picks: dict[str, dict[str, int]],
    backend: ProbeBackend | None,
    seed: int,
    tolerance: float,
) -> list[FamilyCheck]:
    """Every family on the kept questions as written (the flagged probes' picks on them as read; a probe
    retrained on them where ``backend`` is given and they come from two videos at least)."""
    from desiq.per_item import BLIND_INPUTS

    families = shortcut_families(kept) + probe_families(as_read, picks) + position_families(kept)
    if backend is not None and len({item.video for item in kept}) >= 2:
        families += retrained_families(backend, kept, BLIND_INPUTS, seed)
    return [check(f, kept, tolerance / 100, seed) for f in families]


def chosen_mask(
    items: Sequence[MCQAItem],
    every: Sequence[FlagFile],
    backend: ProbeBackend | None,
    settings: Settings,
) -> tuple[np.ndarray, int]:
    """The questions ``settings.method`` keeps, and its rounds; a UsageError where it cannot choose."""
    if settings.method == "unsolved":
        if not every:
            raise UsageError("--method unsolved needs --blind-proof (the per_item.jsonl of `desiq probe --per-item`)")
        return np.array([not any(flags.rows[item.id]["blind_solvable"] for flags in every) for item in items]), 0
    if settings.method == "aflite":
        if backend is None:
            raise UsageError("--method aflite needs a --probe to filter with")
        filtered = aflite.aflite(backend, items, settings.min_keep, settings.seed)
        return filtered.keep, filtered.rounds
    keep, rounds = balanced_keep(items, flag_picks(items, every), backend, settings)
    if keep is None:
        raise UsageError(
            f"no subset of at least {settings.min_keep} of the {len(items)} questions holds every shortcut family "
            f"and flagged probe within {settings.tolerance} points of chance; nothing written (lower --min-keep "
            "or widen --tolerance)"
        )
    return keep, rounds


def choose(
    source: Path,
    items: Sequence[MCQAItem],
    flag_files: Sequence[Path],
    backend: ProbeBackend | None = None,
    settings: Settings = Settings(),
    reading: MCQAReading | None = None,
) -> Subset:
    """The subset of ``items`` (read from ``source``) that ``settings.method`` keeps, with every family's check on
    it; for ``balanced`` a UsageError (nothing chosen) unless every shortcut, flagged probe and gold position
    is within the tolerance. Written in the format and layout of ``reading``, the reading of ``source`` (without
    one: in the format ``source`` is recognised as)."""
    if not all(item.labelled for item in items):
        raise UsageError(f"{source}: a blind-proof subset needs labelled questions (an answer for every one)")
    every = [FlagFile(path, read_flags(path)) for path in flag_files]
    for flags in every:
        check_coverage(items, flags.rows, flags.path, str(source))
    keep, rounds = chosen_mask(items, every, backend, settings)
    as_read = [item for item, k in zip(items, keep) if k]
    if not as_read:
        raise UsageError(f"every one of the {len(items)} questions of {source} is blind-solvable: no subset")
    kept = reorder(as_read, settings.seed) if settings.method == "balanced" else as_read
    checks = family_checks(kept, as_read, flag_picks(items, every), backend, settings.seed, settings.tolerance)
    off = [c for c in checks if c.category in SELECTING and not c.within]
    if settings.method == "balanced" and off:
        raise UsageError(
            f"the balanced subset leaves {off[0].name} at {100 * off[0].accuracy:.1f}% against chance "
            f"{100 * off[0].chance:.1f}% (more than {settings.tolerance} points); nothing written"
        )
    fmt = output_format(reading) if reading is not None else detect_format(source).name
    return Subset(source, fmt, tuple(flag_files), list(items), kept, settings, checks, rounds, reading)


def method_words(subset: Subset) -> str:
    """How ``subset`` was chosen, in a sentence of its card."""
    settings, rounds = subset.settings, subset.rounds
    if settings.method == "aflite":
        return (
            f"AFLite (Le Bras et al., ICML 2020): {rounds} rounds of {aflite.PARTITIONS} blind probes "
            f"({aflite.INPUTS}) each trained on a random {aflite.TRAIN_SHARE:.0%} of the videos, each round removing "
            f"the {aflite.STEP:.0%} most predictable questions (predictability {aflite.THRESHOLD} or more)"
        )
    if settings.method == "unsolved":
        return (
            "the questions that no blind probe or shortcut of the flag files answers (chosen by their answers: "
            "the selecting rules end below chance here)"
        )
    return (
        "the most questions on which every shortcut family, every blind probe of the flag files and every gold "
        f"position is within {settings.tolerance} accuracy points of chance (integer programming, "
        "`scipy.optimize.milp`); a blind probe retrained on the kept questions was brought as near chance as the "
        f"data allows by the same selection ({rounds} rounds made again)"
    )


def card_path(out: Path) -> Path:
    return out.with_name(out.name + ".card.md")


def _check_line(c: FamilyCheck) -> str:
    low, high = c.ci95
    within = "yes" if c.within else "**no**"
    cells = [c.name, c.category, f"{100 * c.accuracy:.1f} [{100 * low:.1f}, {100 * high:.1f}]", f"{100 * c.chance:.1f}"]
    return "| " + " | ".join([*(md_text(x) for x in cells), str(c.n), within]) + " |"


def card_markdown(subset: Subset, out: Path, command: str) -> str:
    n, k, settings = len(subset.items), len(subset.kept), subset.settings
    read_as = subset.reading.format if subset.reading is not None else subset.format
    videos = len({item.video for item in subset.kept})
    how = method_words(subset)
    flags = ", ".join(f"`{p}`" for p in subset.flag_files) or "none"
    order = (
        f"Each kept question's options were reordered (seed {settings.seed}; the answer index follows its option) "
        "so that the correct option sits at every position equally often; question ids are kept."
        if subset.reordered
        else "Options keep the source's order."
    )
    lines = [
        f"# Blind-proof subset of {md_text(subset.source.name)}",
        "",
        f"**What.** {k} questions of `{subset.source}`, method `{settings.method}`: {how}. Flag files "
        f"(`desiq probe --per-item`): {flags}.",
        f"**How it was made.** `{command}`.",
        f"**Format.** `{subset.format}`, "
        + ("as the source." if read_as == subset.format else f"the source's is `{read_as}`."),
        f"**Options.** {order}",
        "",
        "## Sizes",
        f"{n} questions read, {k} kept ({100 * k / max(1, n):.1f}%), from {videos} videos.",
        "",
        "## Every family on the kept questions",
        "Accuracy in % with a 95% interval resampled by video; a tie at the top counts as a share of a hit; "
        f"chance is 1/K; within: the point estimate within {settings.tolerance} points of chance. Shortcuts and "
        "gold positions are scored on the options as written, the flagged probes by their cross-fitted picks on "
        "the full file, the retrained probe cross-fitted by video on the kept questions alone.",
        "",
        "| family | category | accuracy [95% interval] | chance | n | within |",
        "|---|---|---:|---:|---:|---|",
        *(_check_line(c) for c in subset.checks),
        "",
        "## Known biases",
        "A subset is chosen by its answers: a rule no family above covers can still tell the kept questions "
        "apart. Compare a model on the full file and on this subset with `desiq table RUN --subset "
        f"{out.name}`.",
        "",
    ]
    return "\n".join(lines)


def write_subset(subset: Subset, out: Path, command: str) -> Path:
    """Write the kept items in the source's format and layout, then the data card; returns the card's path."""
    write_mcqa(out, subset.kept, subset.format, subset.reading)
    card = card_path(out)
    write_text(card, card_markdown(subset, out, command))
    return card
