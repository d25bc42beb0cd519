"""Social-IQ 2.0 QA files: JSON Lines (whatever the extension) of ``qid, q, vid_name, ts, a0..a3``,
plus ``ans_corr, answer_idx, idx_types`` when labelled. Written back byte for byte as read."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from desiq.formats import MCQAFormat, correct_kinds, first_json_row, known_kinds, require_field
from desiq.records import CORRECT, MCQAItem, position_id
from mmsoc.core.io import InputError, read_jsonl, write_jsonl

MAX_OPTIONS = 8
RELEASE_KINDS = frozenset({CORRECT, "rewrite", "matched"})
"""``idx_types`` of the release: one correct option, one rewrite, two matched distractors."""


def parse_siq2_row(obj: dict[str, Any], item_id: str, path: str = "<input>", line: int = 0) -> MCQAItem:
    """Validate one Social-IQ 2.0 row and turn it into an MCQAItem (labels optional)."""
    qid = require_field(obj, "qid", str, path, line)
    question = require_field(obj, "q", str, path, line)
    video = require_field(obj, "vid_name", str, path, line)
    ts = obj.get("ts", "")
    n_options = next(i for i in range(MAX_OPTIONS + 1) if f"a{i}" not in obj)
    if n_options < 2:
        raise InputError(path, "missing (at least a0 and a1 are needed)", line=line, field=f"a{n_options}")
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
    kinds = require_field(obj, "idx_types", list, path, line)
    _check_kinds(kinds, answer_idx, n_options, path, line)
    return MCQAItem(item_id, qid, video, question, options, answer_idx, tuple(kinds), ts)


def _check_kinds(kinds: list[Any], answer_idx: int, n_options: int, path: str, line: int) -> None:
    if len(kinds) != n_options or not all(isinstance(k, str) for k in kinds):
        raise InputError(path, f"expected {n_options} strings, got {kinds!r}", line=line, field="idx_types")
    known = known_kinds()
    unknown = sorted(set(kinds) - known)
    if unknown:
        raise InputError(path, f"unknown kind(s) {unknown}; known: {sorted(known)}", line=line, field="idx_types")
    correct = correct_kinds()
    correct_slots = [i for i, k in enumerate(kinds) if k in correct]
    if correct_slots != [answer_idx]:
        raise InputError(path, f"exactly one correct kind ({', '.join(sorted(correct))}) expected at "
                               f"answer_idx={answer_idx}, got {kinds!r}", line=line, field="idx_types")


def read_siq2(path: str | os.PathLike) -> list[MCQAItem]:
    """Read a Social-IQ 2.0 QA file; item ids are ``<qid>@<position>``."""
    path = str(path)
    if not os.path.isfile(path):
        raise InputError(path, "file not found")
    items = [parse_siq2_row(obj, position_id(obj.get("qid", ""), k), path, line)
             for k, (line, obj) in enumerate(read_jsonl(path))]
    if not items:
        raise InputError(path, "no questions in file")
    return items


def siq2_row(item: MCQAItem) -> dict[str, Any]:
    """The Social-IQ 2.0 row of an item, in the release's key order."""
    row: dict[str, Any] = {"qid": item.qid, "q": item.question, "vid_name": item.video, "ts": item.ts}
    if item.labelled:
        row.update(ans_corr=item.answer, answer_idx=item.answer_idx, idx_types=list(item.option_kinds))
    row.update((f"a{i}", option) for i, option in enumerate(item.options))
    return row


def write_siq2(path: str | os.PathLike, items: Iterable[MCQAItem]) -> None:
    """Write items atomically; unchanged items come out byte for byte as read."""
    write_jsonl(path, (siq2_row(item) for item in items))


def _detect(path: Path) -> bool:
    row = first_json_row(path)
    return row is not None and "a0" in row


FORMAT = MCQAFormat("siq2", "Social-IQ 2.0 JSON Lines with q, vid_name and options a0, a1, ...", RELEASE_KINDS,
                    _detect, read_siq2, write_siq2)
