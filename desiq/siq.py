"""Social-IQ 2.0 JSON Lines reader/writer and Social-IQ 1.0 style A2/A4 construction."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Sequence

from mmsoc.core.io import InputError, read_jsonl, write_jsonl
from desiq.records import CORRECT_KINDS, ORIGINAL_KINDS, MCQAItem

MAX_OPTIONS = 8
PERTURBATION_KINDS = frozenset({"riwi", "riwa", "rawi", "rawa", "desiq_d", "desiq_s"})
KNOWN_KINDS = ORIGINAL_KINDS | PERTURBATION_KINDS


def _require(obj: dict, key: str, kind: type | tuple[type, ...], path: str, line: int):
    if key not in obj:
        raise InputError(path, "missing", line=line, field=key)
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise InputError(path, f"expected {getattr(kind, '__name__', kind)}, got {type(value).__name__}", line=line, field=key)
    return value


def parse_siq2_row(obj: dict, path: str = "<input>", line: int = 0) -> MCQAItem:
    """Validate one Social-IQ 2.0 row and turn it into an MCQAItem (labels optional)."""
    qid = _require(obj, "qid", str, path, line)
    question = _require(obj, "q", str, path, line)
    video = _require(obj, "vid_name", str, path, line)
    ts = obj.get("ts", "")
    n_options = next(i for i in range(MAX_OPTIONS + 1) if f"a{i}" not in obj)
    if n_options < 2:
        raise InputError(path, "missing (at least a0 and a1 are needed)", line=line, field=f"a{n_options}")
    options = tuple(_require(obj, f"a{i}", str, path, line) for i in range(n_options))
    labelled = any(k in obj for k in ("answer_idx", "ans_corr", "idx_types"))
    if not labelled:
        return MCQAItem(qid, video, question, options, None, (), ts)
    answer_idx = _require(obj, "answer_idx", int, path, line)
    if not 0 <= answer_idx < n_options:
        raise InputError(path, f"{answer_idx} is not an option index 0..{n_options - 1}", line=line, field="answer_idx")
    ans_corr = _require(obj, "ans_corr", str, path, line)
    if ans_corr != options[answer_idx]:
        raise InputError(path, f"does not equal a{answer_idx} (answer_idx={answer_idx})", line=line, field="ans_corr")
    kinds = _require(obj, "idx_types", list, path, line)
    _check_kinds(kinds, answer_idx, n_options, path, line)
    return MCQAItem(qid, video, question, options, answer_idx, tuple(kinds), ts)


def _check_kinds(kinds: list, answer_idx: int, n_options: int, path: str, line: int) -> None:
    if len(kinds) != n_options or not all(isinstance(k, str) for k in kinds):
        raise InputError(path, f"expected {n_options} strings, got {kinds!r}", line=line, field="idx_types")
    unknown = sorted(set(kinds) - KNOWN_KINDS)
    if unknown:
        raise InputError(path, f"unknown kind(s) {unknown}; known: {sorted(KNOWN_KINDS)}", line=line, field="idx_types")
    correct_slots = [i for i, k in enumerate(kinds) if k in CORRECT_KINDS]
    if correct_slots != [answer_idx]:
        raise InputError(
            path, f"exactly one correct kind ('corr') expected at answer_idx={answer_idx}, got {kinds!r}",
            line=line, field="idx_types")


def read_siq2(path: str | os.PathLike) -> list[MCQAItem]:
    """Read a Social-IQ 2.0 QA file (JSON Lines, whatever its extension)."""
    path = str(path)
    if not os.path.exists(path):
        raise InputError(path, "file not found")
    items = [parse_siq2_row(obj, path, line) for line, obj in read_jsonl(path)]
    if not items:
        raise InputError(path, "no questions in file")
    return items


def siq2_row(item: MCQAItem) -> dict:
    """The Social-IQ 2.0 row of an item, in the release's key order."""
    row = {"qid": item.qid, "q": item.question, "vid_name": item.video, "ts": item.ts}
    if item.labelled:
        row.update(ans_corr=item.answer, answer_idx=item.answer_idx, idx_types=list(item.option_kinds))
    row.update((f"a{i}", option) for i, option in enumerate(item.options))
    return row


def write_siq2(path: str | os.PathLike, items: Iterable[MCQAItem]) -> None:
    """Write items atomically; unchanged items come out byte for byte as read."""
    write_jsonl(path, (siq2_row(item) for item in items))


def to_a2(items: Sequence[MCQAItem]) -> list[MCQAItem]:
    """Binary items: the correct option against each incorrect one, in a fixed order.

    The correct option's slot alternates from pair to pair so that "always pick the first"
    scores chance, not 100%. Pair ids are ``<qid>#<j>`` (j: the incorrect option's index).
    """
    pairs = []
    for item in items:
        if not item.labelled:
            raise ValueError(f"A2 needs labelled items; {item.qid} has no answer")
        correct, kind = item.options[item.answer_idx], item.option_kinds[item.answer_idx]
        for j in item.incorrect_idx:
            first = len(pairs) % 2 == 0
            opts = (correct, item.options[j]) if first else (item.options[j], correct)
            kinds = (kind, item.option_kinds[j]) if first else (item.option_kinds[j], kind)
            pairs.append(MCQAItem(f"{item.qid}#{j}", item.video, item.question, opts, 0 if first else 1, kinds, item.ts))
    return pairs


def a2_a4_from_answers(qid: str, video: str, question: str, correct: Sequence[str],
                       incorrect: Sequence[str]) -> tuple[list[MCQAItem], list[MCQAItem]]:
    """Social-IQ 1.0 construction from one question with several correct and incorrect answers.

    A2: every (correct, incorrect) pair (4 x 3 = 12 items in the release); A4: each correct answer
    with all incorrect ones, placed at a rotating slot (4 items). Item ids are
    ``<qid>_a2_<c>_<i>`` and ``<qid>_a4_<c>``.
    """
    if not correct or not incorrect:
        raise ValueError(f"{qid}: needs at least one correct and one incorrect answer")
    a2 = []
    for (c, a), (i, w) in itertools.product(enumerate(correct), enumerate(incorrect)):
        slot = (c + i) % 2
        opts = (a, w) if slot == 0 else (w, a)
        kinds = ("corr", "matched") if slot == 0 else ("matched", "corr")
        a2.append(MCQAItem(f"{qid}_a2_{c}_{i}", video, question, opts, slot, kinds))
    a4 = []
    for c, a in enumerate(correct):
        slot = c % (len(incorrect) + 1)
        opts = list(incorrect)
        opts.insert(slot, a)
        kinds = ["matched"] * len(incorrect)
        kinds.insert(slot, "corr")
        a4.append(MCQAItem(f"{qid}_a4_{c}", video, question, tuple(opts), slot, tuple(kinds)))
    return a2, a4


def answer_repeated_as_distractor(items: Iterable[MCQAItem]) -> list[MCQAItem]:
    """Labelled items whose correct answer also appears as an incorrect option (a release defect)."""
    return [item for item in items if item.labelled
            and any(item.options[i] == item.answer for i in item.incorrect_idx)]
