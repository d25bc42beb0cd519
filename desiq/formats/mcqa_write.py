"""Writing items of a generic multiple-choice file back in the layout it was read in.

Each item is written into the row it came from (an A2 pair into the row of its question): every column
of the input is kept, in its order and under its name, unmapped cells as they were, and the mapped ones
hold the item's values: the question, the options (a list column, or one column each; columns beyond
the item's options are left empty, which reads back as absent options), the answer in the input's
style (a letter, a 0- or 1-based index, or the option's text, as ``MCQAReading.decisions`` recorded),
the kinds where the input has a kinds column (without one the option kinds, such as a perturbation's
markers, are not written), and the id, group, context and media. A cell whose value did not change
keeps its type (an integer id stays an integer). An item that came from no row gets a row of the same
columns with only the mapped cells filled. Items read in another format are written in that format's
columns where it has a flat row (``MCQAFormat.row``: a Social-IQ 2.0 file as CSV keeps ``qid, q,
vid_name, ...``, which this format reads back without a mapping); others, and items without a reading,
in this format's own shape (``id, question, options, answer_idx, kinds, group, context, media``).

The container is the one the output's suffix names (``.csv``, ``.tsv``, ``.json``: a JSON array,
``.jsonl`` or ``.ndjson``: JSON Lines, ``.parquet``), with the input's columns; any other suffix keeps
the input's container, and a JSON Lines input named ``.json`` stays JSON Lines. So ``--out kept.csv``
on a CSV input writes that CSV, and ``--out kept.parquet`` the same columns as Parquet. In CSV and TSV
a list or object cell is written as JSON text, which the reader decodes. A CSV or TSV written in the
container it was read in keeps its line ending and, in every cell the command did not change, the bytes
the input had (its quotes, line breaks inside a cell): a file written back unchanged is the same bytes, but
for a byte-order mark (dropped) and a last line without its line ending (given one).
"""

from __future__ import annotations

import csv
import io
import json
import logging
import os
from collections.abc import Callable, Iterable
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desiq.formats.mcqa_fields import TABLES, SourceRow
from desiq.records import MCQAItem
from mmsoc.core.io import UsageError, atomic_open, write_json, write_jsonl

if TYPE_CHECKING:
    from desiq.formats import MCQAReading
    from desiq.formats.mcqa_fields import Layout, Mapping

LOG = logging.getLogger(__name__)
SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv", ".tsv": "tsv", ".parquet": "parquet"}
CONTAINERS = {"jsonl": "JSON Lines", "json": "JSON", "csv": "CSV", "tsv": "TSV", "parquet": "Parquet"}
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def mcqa_row(item: MCQAItem) -> dict[str, Any]:
    """This format's own row of an item: read back without a mapping to the same item."""
    row: dict[str, Any] = {"id": item.qid, "question": item.question, "options": list(item.options)}
    if item.labelled:
        row.update(answer_idx=item.answer_idx, kinds=list(item.option_markers))
    row["group"] = item.video
    row.update({k: v for k, v in (("context", item.context), ("media", item.media)) if v})
    return row


def write_table_mcqa(path: str | os.PathLike, items: Iterable[MCQAItem], reading: MCQAReading | None) -> None:
    """Write items atomically in the layout of ``reading`` (see the module's docstring)."""
    path = Path(path)
    layout = reading.layout if reading is not None else None
    if reading is None or layout is None or reading.mapping is None:
        rows = [_own_row(reading)(item) for item in items]
        _write_rows(path, _container(path, "jsonl"), rows, list(dict.fromkeys(k for row in rows for k in row)))
        return
    items = list(items)
    sources = [layout.rows.get(item.id) or layout.rows.get(item.source) for item in items]
    rows = [
        _row_of(item, source.cells if source else {}, layout, reading.mapping) for item, source in zip(items, sources)
    ]
    columns = list(dict.fromkeys([*layout.columns, *(k for row in rows for k in row)]))
    container = _container(path, layout.container)
    if layout.text is not None and container == layout.container:
        _write_text(path, rows, sources, columns, layout)
    else:
        _write_rows(path, container, rows, columns)
    _note_base(path, items, layout, reading.mapping)


def _own_row(reading: MCQAReading | None) -> Callable[[MCQAItem], dict[str, Any]]:
    """The row shape of items read without a layout: their format's flat row, else this format's."""
    from desiq.formats import MCQA_FORMATS

    row = MCQA_FORMATS[reading.format].row if reading is not None else None
    return row or mcqa_row


def container_label(path: Path, reading: MCQAReading | None) -> str:
    """The container ``path`` is (or would be) written in, in words: ``CSV``, ``JSON Lines``, ..."""
    layout = reading.layout if reading is not None else None
    return CONTAINERS[_container(path, layout.container if layout is not None else "jsonl")]


def _container(path: Path, read_in: str) -> str:
    named = SUFFIXES.get(path.suffix.lower())
    if named is None or (named == "json" and read_in == "jsonl"):
        return read_in
    return named


def _row_of(item: MCQAItem, base: dict[str, Any], layout: Layout, mapping: Mapping) -> dict[str, Any]:
    """The item's row: the one it was read from (``base``, or an empty one) with the mapped cells set to its values."""
    row = dict(base)
    named = [(mapping.id, item.qid), (mapping.question, item.question), (mapping.group, item.video)]
    named += [(mapping.context, item.context), (mapping.media, item.media)]
    for column, value in named:
        if column:
            row[column] = _kept(base.get(column), value)
    _put_options(row, base, mapping.options, item.options)
    if item.labelled and mapping.answer and layout.answer is not None:
        row[mapping.answer] = _answer_cell(item, layout.answer, base.get(mapping.answer))
    if item.labelled and mapping.kinds:
        markers = list(item.option_markers)
        row[mapping.kinds] = json.dumps(markers) if isinstance(base.get(mapping.kinds), str) else markers
    return row


def _kept(old: object, new: str) -> object:
    """The old cell where it reads as the new value (its type kept, an absent cell left absent), else the new value."""
    return old if (old is None and new == "") or (old is not None and str(old) == new) else new


def _put_options(row: dict[str, Any], base: dict[str, Any], columns: tuple[str, ...], options: tuple[str, ...]) -> None:
    if len(columns) > 1:
        if len(options) > len(columns):
            raise ValueError(f"{len(options)} options do not fit the {len(columns)} option columns")
        row.update({column: options[j] if j < len(options) else "" for j, column in enumerate(columns)})
        return
    old = base.get(columns[0])
    if isinstance(old, dict) and isinstance(old.get("label"), list):  # CommonsenseQA's {label, text}
        labels = old["label"] if len(old["label"]) == len(options) else list(LETTERS[: len(options)])
        row[columns[0]] = {**old, "label": labels, "text": list(options)}
    else:
        row[columns[0]] = list(options)


def _answer_cell(item: MCQAItem, rule: tuple[str, int], old: object) -> str | int:
    """The answer in the input's style: a letter (the old cell's case), an index (its type), or the text."""
    encoding, base = rule
    assert item.answer_idx is not None
    if encoding == "letter":
        letter = LETTERS[item.answer_idx]
        return letter.lower() if isinstance(old, str) and old.strip().islower() else letter
    if encoding == "index":
        index = item.answer_idx + base
        return str(index) if isinstance(old, str) else index
    return item.options[item.answer_idx]


def _note_base(path: Path, items: list[MCQAItem], layout: Layout, mapping: Mapping) -> None:
    """A note when the written index answers no longer show their base (so a reader must be told it)."""
    if layout.answer is None or layout.answer[0] != "index" or mapping.answer_base is not None:
        return
    base = layout.answer[1]
    if base == 0 and mapping.answer == "answer_idx":
        return
    k = max((len(item.options) for item in items), default=0)
    numbers = {item.answer_idx + base for item in items if item.answer_idx is not None}
    detected = 0 if 0 in numbers and k not in numbers else 1 if k in numbers and 0 not in numbers else None
    if numbers and detected != base:
        LOG.warning(f"note: {path}: its answers do not show their base; read it with --fields answer_base={base}")


def _write_rows(path: Path, container: str, rows: list[dict[str, Any]], columns: list[str]) -> None:
    if container in ("csv", "tsv"):
        with atomic_open(path, "w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, delimiter="," if container == "csv" else "\t")
            writer.writerow(columns)
            writer.writerows([_cell(row.get(column)) for column in columns] for row in rows)
    elif container == "parquet":
        _write_parquet(path, rows, columns)
    elif container == "json":
        write_json(path, rows)
    else:
        write_jsonl(path, rows)


def _write_text(
    path: Path, rows: list[dict[str, Any]], sources: list[SourceRow | None], columns: list[str], layout: Layout
) -> None:
    """A CSV or TSV file in the input's line ending, each cell that still says what the input's row (``sources``:
    None for an item that came from no row) said kept in the input's bytes."""
    assert layout.text is not None
    text, delimiter = layout.text, TABLES[f".{layout.container}"]
    header = dict(zip(layout.columns, text.cells[1])) if 1 in text.cells else {}
    lines = [delimiter.join(header.get(column) or _quoted(column, delimiter) for column in columns)]
    for row, source in zip(rows, sources):
        old = source.cells if source else {}
        raw = dict(zip(layout.columns, text.cells.get(source.line, ()) if source else ()))
        cells = []
        for column in columns:
            same = column in raw and _same_cell(old.get(column), row.get(column))
            cells.append(raw[column] if same else _quoted(_cell(row.get(column)), delimiter))
        lines.append(delimiter.join(cells))
    with atomic_open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write("".join(line + text.newline for line in lines))


def _same_cell(old: object, new: object) -> bool:
    """Whether the cell read as ``old`` still says ``new`` (a list or object cell: the same JSON value)."""
    if not isinstance(old, str):
        return False
    if isinstance(new, (list, dict)):
        with suppress(json.JSONDecodeError):
            return json.loads(old) == new
    return _cell(new) == old


def _quoted(value: str, delimiter: str) -> str:
    """One cell as ``csv.writer`` writes it (quoted where it must be)."""
    if value == "":
        return ""
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter, lineterminator="").writerow([value])
    return buffer.getvalue()


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _write_parquet(path: Path, rows: list[dict[str, Any]], columns: list[str]) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise UsageError(f"{path}: writing Parquet needs the pyarrow package (pip install pyarrow)") from None
    table = pa.table({column: [row.get(column) for row in rows] for column in columns})
    with atomic_open(path, "wb") as handle:
        pq.write_table(table, handle)
