"""The battles and votes files: one battle a line, as typed records validated on read.

A votes file is a battles file with the votes filled in::

    {"id": str, "item": str, "task": str, "model_a": str, "model_b": str, "response_a": str,
     "response_b": str, "prompt": str, "text": str, "data": str | null, "media": [str, ...],
     "position_seed": int | null, "swapped": bool | null, "meta": {...},
     "votes": [{"annotator": str, "label": "A" | "B" | "tie" | "both_bad", "critique": str,
                "time": float}, ...]}

``id``, ``item``, ``model_a``, ``model_b``, ``response_a`` and ``response_b`` are required; the rest
are optional. ``prompt`` is the question the models answered and ``text`` the item's own text;
``media`` are image files, video files or folders of frames, relative to the data root ``data``
names (a folder, ``sample`` or ``hub``). ``swapped`` says whether ``model_a`` was the second of the
pair as given to ``mmsoc arena pair`` (the A/B position drawn with ``position_seed``). Each vote is
one annotator's label for the battle; ``time`` is seconds since the epoch (0 for a judge model).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from mmsoc.core.io import InputError, read_jsonl, write_jsonl
from mmsoc.core.names import NAME_LIMIT, cut, shown

LABELS: tuple[str, ...] = ("A", "B", "tie", "both_bad")
"""A better, B better, a tie, both bad (SocialArena's A / B / T / G)."""

REQUIRED = ("id", "item", "model_a", "model_b", "response_a", "response_b")
OPTIONAL_TEXT = ("task", "prompt", "text")


@dataclass(frozen=True)
class Vote:
    """One annotator's (or judge's) label for one battle."""

    annotator: str
    label: str
    critique: str = ""
    time: float = 0.0


@dataclass(frozen=True)
class Battle:
    """Two anonymous responses to the same item, and the votes cast on them."""

    id: str
    item: str
    model_a: str
    model_b: str
    response_a: str
    response_b: str
    task: str = ""
    prompt: str = ""
    text: str = ""
    data: str | None = None
    media: tuple[str, ...] = ()
    position_seed: int | None = None
    swapped: bool | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    votes: tuple[Vote, ...] = ()

    def to_json(self) -> dict[str, Any]:
        row = asdict(self)
        row["media"] = list(self.media)
        row["votes"] = [asdict(vote) for vote in self.votes]
        return row

    def with_votes(self, votes: Sequence[Vote]) -> Battle:
        return replace(self, votes=tuple(votes))

    @property
    def digest(self) -> str:
        """sha256 of the battle without its votes: what a judge saw."""
        row = self.to_json()
        del row["votes"]
        return hashlib.sha256(json.dumps(row, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()

    @property
    def models(self) -> tuple[str, str]:
        return self.model_a, self.model_b


def parse_battle(obj: dict[str, Any], path: str | os.PathLike, line: int | None = None) -> Battle:
    """A :class:`Battle` from one JSON object; any problem raises InputError naming file, line and field."""

    def fail(message: str, name: str) -> InputError:
        return InputError(path, message, line=line, field=name)

    known = set(REQUIRED) | set(OPTIONAL_TEXT) | {"data", "media", "position_seed", "swapped", "meta", "votes"}
    unknown = sorted(set(obj) - known)
    if unknown:
        raise fail(f"unknown field (known: {', '.join(sorted(known))}; put extra data under 'meta')", unknown[0])
    values: dict[str, Any] = {}
    for name in REQUIRED:
        if name not in obj:
            raise fail("missing", name)
        values[name] = _string(obj[name], fail, name, empty=name.startswith("response"))
    for name in OPTIONAL_TEXT:
        values[name] = _string(obj.get(name, ""), fail, name, empty=True)
    if values["model_a"] == values["model_b"]:
        raise fail("model_a and model_b must differ", "model_b")
    data = obj.get("data")
    if data is not None:
        values["data"] = _string(data, fail, "data")
    values["media"] = _media(obj.get("media", []), fail)
    if values["media"] and data is None:
        raise fail("media need a data root ('data': a folder, 'sample' or 'hub')", "data")
    seed = obj.get("position_seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise fail("expected an integer or null", "position_seed")
    swapped = obj.get("swapped")
    if swapped is not None and not isinstance(swapped, bool):
        raise fail("expected true, false or null", "swapped")
    meta = obj.get("meta", {})
    if not isinstance(meta, dict):
        raise fail("expected an object", "meta")
    votes = _votes(obj.get("votes", []), fail)
    return Battle(**values, position_seed=seed, swapped=swapped, meta=meta, votes=votes)


def _string(value: object, fail, name: str, empty: bool = False) -> str:
    if not isinstance(value, str):
        raise fail(f"expected a string, got {type(value).__name__}", name)
    if not empty and not value.strip():
        raise fail("must not be empty", name)
    return value


def _media(value: object, fail) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise fail("expected a list of paths relative to the data root", "media")
    for k, entry in enumerate(value):
        name = f"media[{k}]"
        _string(entry, fail, name)
        path = PurePosixPath(entry)
        if path.is_absolute() or ".." in path.parts or "\\" in entry:
            raise fail("must be a path inside the data root (relative, no '..')", name)
    return tuple(value)


def _votes(value: object, fail) -> tuple[Vote, ...]:
    if not isinstance(value, list):
        raise fail("expected a list of votes", "votes")
    votes, seen = [], set()
    for k, entry in enumerate(value):
        name = f"votes[{k}]"
        if not isinstance(entry, dict):
            raise fail("expected an object", name)
        unknown = sorted(set(entry) - {"annotator", "label", "critique", "time"})
        if unknown:
            raise fail("unknown field (known: annotator, label, critique, time)", f"{name}.{unknown[0]}")
        if "annotator" not in entry:
            raise fail("missing", f"{name}.annotator")
        annotator = _string(entry["annotator"], fail, f"{name}.annotator")
        if len(annotator) > NAME_LIMIT:
            raise fail(f"annotator {shown(annotator)} is longer than {NAME_LIMIT} characters", f"{name}.annotator")
        if annotator in seen:
            raise fail(f"annotator {shown(annotator)} votes twice on this battle", f"{name}.annotator")
        seen.add(annotator)
        label = entry.get("label")
        if label not in LABELS:
            raise fail(f"expected one of {', '.join(LABELS)}, got {cut(repr(label))}", f"{name}.label")
        critique = _string(entry.get("critique", ""), fail, f"{name}.critique", empty=True)
        time = entry.get("time")
        if isinstance(time, bool) or not isinstance(time, (int, float)) or time != time:
            raise fail("expected a number (seconds since the epoch)", f"{name}.time")
        votes.append(Vote(annotator, label, critique, float(time)))
    return tuple(votes)


def read_battles(path: str | os.PathLike, allow_empty: bool = False) -> list[Battle]:
    """Every battle of a battles or votes file, in file order; ids must be unique. An empty file is
    refused unless ``allow_empty`` (a judge that voted on nothing writes one)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "file not found")
    battles: list[Battle] = []
    lines: dict[str, int] = {}
    for line, obj in read_jsonl(path):
        battle = parse_battle(obj, path, line)
        if battle.id in lines:
            raise InputError(path, f"battle id {battle.id!r} also on line {lines[battle.id]}", line=line, field="id")
        lines[battle.id] = line
        battles.append(battle)
    if not battles and not allow_empty:
        raise InputError(path, "no battles in file")
    return battles


def write_battles(path: str | os.PathLike, battles: Sequence[Battle]) -> None:
    """Write battles (atomically: a crash leaves the previous file)."""
    write_jsonl(path, (battle.to_json() for battle in battles))
