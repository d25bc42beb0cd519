"""Social-IQ 2.0 QA files: JSON Lines (whatever the extension) of ``qid, q, vid_name, ts, a0..a3``,
plus ``ans_corr, answer_idx, idx_types`` when labelled. Written back byte for byte as read."""

from __future__ import annotations

import logging
import os
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from desiq.formats import MCQAFormat, correct_option_markers, first_json_row, known_markers, require_field
from desiq.records import CORRECT, MCQAItem, position_id
from mmsoc.core.io import InputError, read_jsonl, write_jsonl

MAX_OPTIONS = 8
OPTION_KEY = re.compile(r"a(0|[1-9][0-9]*)")
LOG = logging.getLogger(__name__)
"""Notes about a file that is read in full but looks odd (repeated qids); stderr by default."""
RELEASE_MARKERS = frozenset({CORRECT, "rewrite", "matched"})
"""``idx_types`` of the release: one correct option, one rewrite, two matched distractors."""


def parse_siq2_row(obj: dict[str, Any], item_id: str, path: str = "<input>", line: int = 0) -> MCQAItem:
    """Validate one Social-IQ 2.0 row and turn it into an MCQAItem (labels optional)."""
    qid = require_field(obj, "qid", str, path, line)
    question = require_field(obj, "q", str, path, line)
    video = require_field(obj, "vid_name", str, path, line)
    ts = require_field(obj, "ts", str, path, line) if "ts" in obj else ""
    n_options = _option_count(obj, path, line)
    options = tuple(require_field(obj, f"a{i}", str, path, line) for i in range(n_options))
    labelled = any(k in obj for k in ("answer_idx", "ans_corr", "idx_types"))
    if not labelled:
        return MCQAItem(item_id, qid, video, question, options, None, (), ts)
    answer_idx = require_field(obj, "answer_idx", int, path, line)
    if not 0 <= answer_idx < n_options:
        raise InputError(path, f"{answer_idx} is not an option index 0..{n_options - 1}", line=line, field="answer_idx")
    ans_corr = require_field(obj, "ans_corr", str, path, line)
    if ans_corr != options[answer_idx]:
        raise InputError(path, f"does not equal a{answer_idx} (answer_idx={answer_idx})", line=line, field="ans_corr")
    markers = require_field(obj, "idx_types", list, path, line)
    _check_markers(markers, answer_idx, n_options, path, line)
    return MCQAItem(item_id, qid, video, question, options, answer_idx, tuple(markers), ts)


def _option_count(obj: dict[str, Any], path: str, line: int) -> int:
    """How many options ``a0, a1, ...`` the row has; a gap (``a5`` without ``a4``) or too many is an InputError."""
    present = sorted(int(key[1:]) for key in obj if OPTION_KEY.fullmatch(key))
    n_options = next(i for i in range(len(present) + 1) if i not in present)
    if n_options < 2:
        raise InputError(path, "missing (at least a0 and a1 are needed)", line=line, field=f"a{n_options}")
    if present[-1] >= n_options:
        raise InputError(
            path,
            f"missing while a{present[-1]} is present (options are a0, a1, ... without gaps)",
            line=line,
            field=f"a{n_options}",
        )
    if n_options > MAX_OPTIONS:
        raise InputError(
            path, f"at most {MAX_OPTIONS} options (a0..a{MAX_OPTIONS - 1})", line=line, field=f"a{MAX_OPTIONS}"
        )
    return n_options


def _check_markers(markers: list[Any], answer_idx: int, n_options: int, path: str, line: int) -> None:
    if len(markers) != n_options or not all(isinstance(k, str) for k in markers):
        raise InputError(path, f"expected {n_options} strings, got {markers!r}", line=line, field="idx_types")
    known = known_markers()
    unknown = sorted(set(markers) - known)
    if unknown:
        raise InputError(path, f"unknown marker(s) {unknown}; known: {sorted(known)}", line=line, field="idx_types")
    correct = correct_option_markers()
    correct_slots = [i for i, k in enumerate(markers) if k in correct]
    if correct_slots != [answer_idx]:
        raise InputError(
            path,
            f"exactly one correct marker ({', '.join(sorted(correct))}) expected at "
            f"answer_idx={answer_idx}, got {markers!r}",
            line=line,
            field="idx_types",
        )


def read_siq2(path: str | os.PathLike) -> list[MCQAItem]:
    """Read a Social-IQ 2.0 QA file; item ids are ``<qid>@<position>``."""
    path = str(path)
    if not os.path.isfile(path):
        raise InputError(path, "file not found")
    rows = list(read_jsonl(path))
    items = [parse_siq2_row(obj, position_id(obj.get("qid", ""), k), path, line) for k, (line, obj) in enumerate(rows)]
    if not items:
        raise InputError(path, "no questions in file")
    for message in repeated_qids(path, [line for line, _ in rows], items):
        LOG.warning(message)
    return items


def repeated_qids(path: str, lines: Sequence[int], items: Sequence[MCQAItem]) -> list[str]:
    """Notes naming the qids used by more than one row (the release reuses some qids for other
    questions): each row stays an item of its own, told apart by its position in the file."""
    rows: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for line, item in zip(lines, items):
        rows[item.qid].append((line, item.question))
    repeats = {qid: found for qid, found in rows.items() if len(found) > 1}
    notes = []
    for same, what in ((False, "with different questions"), (True, "with the same question")):
        group = {qid: found for qid, found in repeats.items() if (len({q for _, q in found}) == 1) == same}
        if group:
            qid, found = next(iter(group.items()))
            notes.append(
                f"note: {path}: {len(group)} qid(s) used on several lines {what} (first: {qid!r} on "
                f"lines {', '.join(str(line) for line, _ in found)}); each line is kept as its own "
                "question, told apart by its position"
            )
    return notes


def siq2_row(item: MCQAItem) -> dict[str, Any]:
    """The Social-IQ 2.0 row of an item, in the release's key order."""
    row: dict[str, Any] = {"qid": item.qid, "q": item.question, "vid_name": item.video, "ts": item.ts}
    if item.labelled:
        row.update(ans_corr=item.answer, answer_idx=item.answer_idx, idx_types=list(item.option_markers))
    row.update((f"a{i}", option) for i, option in enumerate(item.options))
    return row


def write_siq2(path: str | os.PathLike, items: Iterable[MCQAItem]) -> None:
    """Write items atomically; unchanged items come out byte for byte as read."""
    write_jsonl(path, (siq2_row(item) for item in items))


def _detect(path: Path) -> bool:
    row = first_json_row(path)
    return row is not None and "a0" in row


FORMAT = MCQAFormat(
    "siq2",
    "Social-IQ 2.0 JSON Lines with q, vid_name and options a0, a1, ...",
    RELEASE_MARKERS,
    _detect,
    read_siq2,
    lambda path, items, _reading: write_siq2(path, items),
    suffixes=(".json", ".jsonl", ".ndjson"),
    label=lambda _path, _reading: "Social-IQ 2.0 JSON Lines",
    row=siq2_row,
)
