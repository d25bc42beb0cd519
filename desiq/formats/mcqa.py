"""Any multiple-choice file: JSON Lines, JSON (an array of objects), CSV, TSV or Parquet, read through a
field mapping.

A mapping names the columns (``--fields`` text, or the same keys in a YAML file, ``--schema``)::

    id=ID,question=COL,options=COL|COL|...,answer=COL,answer_base=0|1,group=COL,context=COL,media=COL

``options`` is a list column or several columns (``|``-separated; trailing empty cells are absent
options). ``answer`` is an index (0- or 1-based), a letter (``A`` is the first option) or the option's
text; which one is decided for the whole file and recorded (``MCQAReading.decisions``): an index's base
is ``answer_base`` when given, 0 for a column named ``answer_idx``, else read from the data (a 0 means
0-based, an index equal to the option count 1-based; neither, or both, is an error asking for
``answer_base``). ``group`` is what partners and intervals cluster on (a video, a passage; default:
each item its own group), ``context`` is shown as the transcript, ``media`` a path under the media
folder (``--media-root``, default the file's folder; a path leading outside it is refused). ``kinds``
(a list column) keeps the option markers of files this format wrote.

Without a mapping, common shapes are recognised: a ``question`` column with a list column ``choices``,
``options`` or ``answers`` (or CommonsenseQA's ``choices: {label, text}``), or columns ``answerA``,
``answerB``, ... (SocialIQA), and an ``answer_idx``, ``answer``, ``label`` or ``answerKey`` column; and
Social-IQ 2.0's columns in a table (``qid, q, vid_name, a0, a1, ..., answer_idx, idx_types``), as this
format writes items read from a Social-IQ file into a CSV, TSV or Parquet output.

A file has one option count K (the most common one): rows with another count, and rows that cannot be
read (text that is not a string, NaN, an answer out of range, an option that is blank or repeats another
one, whitespace and case aside, ...) are skipped, each named by file, line (the record's number in JSON
arrays and Parquet) and field. Items are written back in the layout they were read in, each in its own row
(``desiq.formats.mcqa_write``).
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections import Counter
from contextlib import suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeGuard

from desiq.formats import MCQAFormat, MCQAReading, correct_option_markers, first_json_row, known_markers
from desiq.formats.mcqa_fields import (
    TABLES,
    Layout,
    Mapping,
    Rows,
    SourceRow,
    container_of,
    guess_mapping,
    table_rows,
)
from desiq.formats.mcqa_write import SUFFIXES, container_label, mcqa_row, write_table_mcqa
from desiq.records import CORRECT, MCQAItem, position_id
from mmsoc.core.io import InputError, read_text
from mmsoc.core.names import shown
from mmsoc.core.paths import OutsideRoot, inside

LOG = logging.getLogger(__name__)
INCORRECT = "incorrect"
LETTERS = re.compile(r"[A-Za-z]")


def _text(row: dict[str, Any], column: str, path: Path, line: int, required: bool = True, name: bool = False) -> str:
    """A text cell (``name``: an id or group, which may also be an integer); NaN, numbers and lists are refused."""
    value = row.get(column)
    if value is None or value == "":
        if required:
            raise InputError(path, "missing or empty", line=line, field=column)
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int) if name else str):
        raise InputError(path, f"expected text, got {_shown(value)}", line=line, field=column)
    return str(value)


def _shown(value: object) -> str:
    return repr(value) if isinstance(value, float) else type(value).__name__


def _options(row: dict[str, Any], mapping: Mapping, path: Path, line: int) -> list[str]:
    """The row's options, refused (the row skipped) where one is blank or two are the same text."""
    options = _option_texts(row, mapping, path, line)
    columns = mapping.options if len(mapping.options) > 1 else mapping.options * len(options)
    _distinct(options, columns, path, line)
    return options


def _distinct(options: list[str], columns: tuple[str, ...], path: Path, line: int) -> None:
    """An InputError where an option is whitespace only or repeats an earlier one (as replacements compare texts)."""
    from desiq.perturbation_schemes import same_text

    first: dict[str, int] = {}
    for k, (option, column) in enumerate(zip(options, columns)):
        if not option.strip():
            raise InputError(path, f"option {k} is blank (whitespace only)", line=line, field=column)
        earlier = first.setdefault(same_text(option), k)
        if earlier != k:
            why = f"options {earlier} and {k} are the same text ({shown(option)})"
            raise InputError(path, why, line=line, field=column)


def _option_texts(row: dict[str, Any], mapping: Mapping, path: Path, line: int) -> list[str]:
    if len(mapping.options) > 1:
        texts = [_text(row, c, path, line, required=False) for c in mapping.options]
        while texts and not texts[-1]:
            texts.pop()
        gap = next((c for c, t in zip(mapping.options, texts) if not t), None)
        if gap:
            raise InputError(path, "empty while a later option is given", line=line, field=gap)
        return texts
    column = mapping.options[0]
    value = row.get(column)
    if isinstance(value, dict) and isinstance(value.get("text"), list):
        value = value["text"]  # CommonsenseQA: {"label": [...], "text": [...]}
    value = _listed(value)
    if not isinstance(value, list):
        raise InputError(path, f"expected a list of options, got {_shown(value)}", line=line, field=column)
    bad = next((k for k, v in enumerate(value) if not isinstance(v, str) or not v), None)
    if bad is not None:
        what = "empty" if value[bad] == "" else _shown(value[bad])
        raise InputError(path, f"option {bad} is {what}, not text", line=line, field=column)
    return list(value)


def _listed(value: Any) -> Any:
    """A list column written as JSON text in a CSV cell, decoded; any other value as it is."""
    if isinstance(value, str) and value.startswith("["):
        with suppress(json.JSONDecodeError):
            return json.loads(value)
    return value


@dataclass(frozen=True)
class _Row:
    line: int
    qid: str
    question: str
    options: list[str]
    answer: int | str | None
    group: str
    context: str
    media: str
    markers: Any
    source: dict[str, Any]


def _row(obj: dict[str, Any], position: int, mapping: Mapping, path: Path, line: int, root: Path) -> _Row:
    assert mapping.question is not None
    qid = _text(obj, mapping.id, path, line, name=True) if mapping.id else str(position + 1)
    media = _text(obj, mapping.media, path, line, required=False) if mapping.media else ""
    if media:
        try:
            inside(root, media)
        except OutsideRoot as err:
            raise InputError(
                path, f"{err}: media paths stay under --media-root", line=line, field=mapping.media
            ) from None
    answer = obj.get(mapping.answer) if mapping.answer else None
    if answer is not None and (isinstance(answer, bool) or not isinstance(answer, (int, str))):
        why = f"expected an index, a letter or the option text, got {_shown(answer)}"
        raise InputError(path, why, line=line, field=mapping.answer)
    return _Row(
        line,
        qid,
        _text(obj, mapping.question, path, line),
        _options(obj, mapping, path, line),
        None if answer == "" else answer,
        _text(obj, mapping.group, path, line, name=True) if mapping.group else "",
        _text(obj, mapping.context, path, line, required=False) if mapping.context else "",
        media,
        _listed(obj.get(mapping.kinds)) if mapping.kinds else None,
        obj,
    )


def _is_index(value: object) -> TypeGuard[int | str]:
    return (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, str) and value.isdigit())


def _encoding_of(row: _Row) -> str:
    """How one answer reads: an index, the text of one of its options, else a letter (or unreadable text)."""
    from desiq.perturbation_schemes import same_text

    if _is_index(row.answer):
        return "index"
    if same_text(str(row.answer)) in {same_text(option) for option in row.options}:
        return "text"
    return "letter" if LETTERS.fullmatch(str(row.answer).strip()) else "text"


def _answer_rule(rows: list[_Row], mapping: Mapping, k: int, path: Path) -> tuple[str, int, str]:
    """(encoding, base, decision in words): how the file's answers are read, decided once for the file."""
    values = [r.answer for r in rows if r.answer is not None]
    encodings = Counter(_encoding_of(r) for r in rows if r.answer is not None)
    encoding = max(("index", "letter", "text"), key=lambda name: encodings[name])  # the most common; ties: that order
    if encoding == "index":
        numbers = {int(v) for v in values if _is_index(v)}
        if mapping.answer_base is not None:
            return "index", mapping.answer_base, f"{mapping.answer_base}-based index (answer_base in the mapping)"
        if mapping.answer == "answer_idx":
            return "index", 0, "0-based index (column answer_idx)"
        if 0 in numbers and k not in numbers:
            return "index", 0, f"0-based index (detected: the values include 0 and never {k})"
        if k in numbers and 0 not in numbers:
            return "index", 1, f"1-based index (detected: the values include {k} and never 0)"
        why = "include both 0 and K" if 0 in numbers else "include neither 0 nor K"
        raise InputError(
            path, f"index answers {why} (K={k} options): say answer_base=0 or answer_base=1", field=mapping.answer
        )
    if encoding == "letter":
        return "letter", 0, "a letter (A is the first option)"
    return "text", 0, "the text of the correct option"


def _answer_idx(row: _Row, rule: tuple[str, int, str], path: Path, column: str) -> int:
    encoding, base, _ = rule
    value = row.answer
    if encoding == "index" and _is_index(value):
        idx = int(value) - base
    elif encoding == "letter" and LETTERS.fullmatch(str(value).strip()):
        idx = ord(str(value).strip().upper()) - ord("A")
    elif encoding != "text":
        raise InputError(path, f"{value!r} is not {rule[2]}", line=row.line, field=column)
    else:
        if not isinstance(value, str):
            raise InputError(path, f"expected the option text, got {_shown(value)}", line=row.line, field=column)
        idx = _text_index(row, value, path, column)
    if not 0 <= idx < len(row.options):
        raise InputError(path, f"{value!r} is not one of the {len(row.options)} options", line=row.line, field=column)
    return idx


def _text_index(row: _Row, value: str, path: Path, column: str) -> int:
    from desiq.perturbation_schemes import same_text

    found = [i for i, option in enumerate(row.options) if same_text(option) == same_text(value)]
    if len(found) != 1:
        what = "matches no option" if not found else f"matches options {found} alike"
        raise InputError(path, f"{value!r} {what}", line=row.line, field=column)
    return found[0]


def _markers(row: _Row, answer_idx: int, path: Path, column: str | None) -> tuple[str, ...]:
    if row.markers is None:
        return tuple(CORRECT if i == answer_idx else INCORRECT for i in range(len(row.options)))
    markers = row.markers
    strings = isinstance(markers, list) and all(isinstance(m, str) for m in markers)
    if not strings or len(markers) != len(row.options):
        raise InputError(path, f"expected {len(row.options)} markers, got {markers!r}", line=row.line, field=column)
    unknown = sorted(set(markers) - known_markers())
    correct = [i for i, k in enumerate(markers) if k in correct_option_markers()]
    if unknown or correct != [answer_idx]:
        why = f"unknown marker(s) {unknown}" if unknown else f"one correct marker expected at {answer_idx}"
        raise InputError(path, f"{why}, got {markers!r}", line=row.line, field=column)
    return tuple(markers)


def read_table_mcqa(
    path: str | os.PathLike, mapping: Mapping | None = None, media_root: str | os.PathLike | None = None
) -> MCQAReading:
    """Read a file through ``mapping`` (its unset keys recognised from the columns); bad rows are skipped."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "file not found")
    columns, raw, text = table_rows(path)
    used = (mapping or Mapping()).over(guess_mapping(columns))
    unknown = [c for c in used.columns() if c not in columns]
    if unknown:
        raise InputError(path, f"column {unknown[0]!r} is not in the file (columns: {', '.join(columns)})")
    if used.question is None or not used.options:
        raise InputError(
            path,
            f"cannot tell the question and options apart among columns {columns}: give --fields "
            "question=COL,options=COL|COL|...,answer=COL (or --schema FILE)",
        )
    root = Path(media_root) if media_root is not None else path.parent
    reading = MCQAReading(path, "mcqa", [], len(raw), used)
    rows = _parsed(raw, used, path, root, reading.skipped)
    return _finish(reading, used, rows, Layout(container_of(path), tuple(columns), None, {}, text))


def _parsed(raw: Rows, mapping: Mapping, path: Path, root: Path, skipped: list[str]) -> list[tuple[int, _Row]]:
    rows = []
    for position, (line, obj) in enumerate(raw):
        try:
            if isinstance(obj, InputError):
                raise obj
            rows.append((position, _row(obj, position, mapping, path, line, root)))
        except InputError as err:
            skipped.append(str(err))
    return rows


def _finish(reading: MCQAReading, mapping: Mapping, rows: list[tuple[int, _Row]], layout: Layout) -> MCQAReading:
    path = reading.path
    if not rows:
        raise InputError(
            path,
            "no readable questions in file" + (f" (first problem: {reading.skipped[0]})" if reading.skipped else ""),
        )
    counts = Counter(len(r.options) for _, r in rows)
    k = max(counts, key=lambda n: (counts[n], -min(p for p, r in rows if len(r.options) == n)))
    kept = []
    for position, row in rows:
        if len(row.options) != k:
            why = f"{len(row.options)} options, the file's count is {k}"
            reading.skipped.append(str(InputError(path, why, line=row.line, field="|".join(mapping.options))))
        else:
            kept.append((position, row))
    labelled = [r for _, r in kept if r.answer is not None]
    rule = _answer_rule(labelled, mapping, k, path) if labelled else ("index", 0, "no answers (unlabelled)")
    reading.decisions += [f"options per question: {k} (the most common count)", f"answer: {rule[2]}"]
    if not mapping.group:
        reading.decisions.append("group: none given, each question is its own group")
    for position, row in kept:
        try:
            reading.items.append(_item(row, position, rule, mapping, path, bool(labelled)))
        except InputError as err:
            reading.skipped.append(str(err))
        else:
            layout.rows[reading.items[-1].id] = SourceRow(row.line, row.source)
    reading.layout = replace(layout, answer=rule[:2] if labelled else None)
    if not reading.items:
        raise InputError(path, f"no readable questions in file (first problem: {reading.skipped[0]})")
    if reading.skipped:
        LOG.warning(
            f"note: {path}: {len(reading.skipped)} of {reading.rows} rows skipped (first: {reading.skipped[0]})"
        )
    return reading


def _item(
    row: _Row, position: int, rule: tuple[str, int, str], mapping: Mapping, path: Path, labelled: bool
) -> MCQAItem:
    item_id = position_id(row.qid, position)
    group = row.group or item_id
    if not labelled:
        return MCQAItem(
            item_id, row.qid, group, row.question, tuple(row.options), None, (), context=row.context, media=row.media
        )
    if row.answer is None:
        raise InputError(path, "missing while other rows are labelled", line=row.line, field=mapping.answer)
    idx = _answer_idx(row, rule, path, mapping.answer or "")
    markers = _markers(row, idx, path, mapping.kinds)
    return MCQAItem(
        item_id, row.qid, group, row.question, tuple(row.options), idx, markers, context=row.context, media=row.media
    )


def _detect(path: Path) -> bool:
    if path.suffix.lower() in (*TABLES, ".parquet"):
        return True
    row = first_json_row(path)
    if row is None:
        return path.suffix.lower() == ".json" and read_text(path).lstrip()[:1] == "["
    guessed = guess_mapping(row)
    return "a0" not in row and guessed.question is not None and bool(guessed.options)


FORMAT = MCQAFormat(
    "mcqa",
    "any multiple-choice file (JSON Lines, JSON, CSV, TSV, Parquet) through --fields or a common shape",
    frozenset({CORRECT, INCORRECT}),
    _detect,
    lambda path: read_table_mcqa(path).items,
    write_table_mcqa,
    suffixes=tuple(SUFFIXES),
    label=container_label,
    row=mcqa_row,
)
