"""The SocKET files as the hub repository ``Blablablab/SOCKET`` stores them, read without its loading script.

``DIR/SOCKET_DATA/<task>/`` (the task's official name, ``#`` included) holds, per split, ``<split>_text.txt``
and ``<split>_labels.txt`` (``train``, ``val``, ``test`` and ``sockette``, the SocKETTe subset), one item
per line, line i of one file with line i of the other; ``label_list.txt`` (absent for span tasks) names
the classes, one per line. ``--split dev`` (or ``val``/``validation``) reads ``val_*``.

* the text is the line stripped (``SOCKET.py``); a pair task's text is ``text_a[SEP]text_b`` and its two
  sides are kept as split, spaces included (``predict.py``);
* a classification label is a class name or its number, as ``datasets.ClassLabel`` reads it;
* a regression label is a finite number (an item without one, ``nan``, is left out and recorded; an
  infinity is refused);
* a span label is a Python literal, ``{'toxic': ['span', ...]}`` (a list of such dicts and a plain list
  of strings are read too), parsed with ``ast.literal_eval``, never evaluated.

Files are read as ``SOCKET.py`` reads them (``readlines`` in text mode, so ``\\r`` also ends a line).
Item ids are the 0-based line numbers, as the loading script numbers its rows.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

from mmsoc.core.io import InputError
from mmsoc.core.records import Example
from mmsoc.tasks.data.dataset import PAPER_OPTIONS, Dataset, LoadOptions
from mmsoc.tasks.data.result import ItemProblem, LoadResult
from mmsoc.tasks.registry import short_name
from mmsoc.tasks.socket.sample import write_sample
from mmsoc.tasks.socket.table import FOLDER, SUITE, type_of
from mmsoc.tasks.spec import TaskSpec

SPLIT_FILES = {"dev": "val"}
"""Split name here -> its file prefix (the rest are the same)."""
SEP = "[SEP]"


def split_prefix(split: str) -> str:
    return SPLIT_FILES.get(split, split)


def read_lines(path: Path) -> list[str]:
    """The file's lines as ``SOCKET.py`` reads them (text mode, UTF-8); InputError naming a bad file."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.readlines()
    except FileNotFoundError:
        raise InputError(path, "file not found (expected the SocKET hub layout, see data_cards/socket.md)") from None
    except UnicodeDecodeError as err:
        raise InputError(path, f"not UTF-8 text (byte {err.start + 1} of the file)") from None


def load(
    spec: TaskSpec, root: Path, split: str, limit: int | None = None, options: LoadOptions = PAPER_OPTIONS
) -> LoadResult:
    """Items of ``spec`` from ``root/<task>/<split>_{text,labels}.txt`` (``root`` is ``DIR/SOCKET_DATA``)."""
    folder = root / short_name(spec.id)
    prefix = split_prefix(split)
    texts = read_lines(folder / f"{prefix}_text.txt")
    labels_path = folder / f"{prefix}_labels.txt"
    labels = read_lines(labels_path)
    if len(texts) != len(labels):
        raise InputError(labels_path, f"{len(labels)} labels for {len(texts)} texts in {prefix}_text.txt")
    _check_label_list(spec, folder / "label_list.txt")
    result = LoadResult()
    for index, (text, label) in enumerate(zip(texts, labels)):
        if limit is not None and len(result.examples) >= limit:
            break
        try:
            result.examples.append(example(spec, str(index), text.strip(), label, split))
        except SkipLine as skipped:
            result.problems.append(
                ItemProblem(str(index), str(labels_path), skipped.field, str(skipped), line=index + 1)
            )
        except ValueError as err:
            raise InputError(labels_path, str(err), line=index + 1, field="label") from None
    return result


class SkipLine(ValueError):
    """An item that cannot be used (no label, a pair without two sides): left out and recorded."""

    def __init__(self, message: str, field: str = "label"):
        super().__init__(message)
        self.field = field


def example(spec: TaskSpec, item_id: str, text: str, label_line: str, split: str) -> Example:
    """One item; ValueError for a malformed label, SkipLine for an item to leave out."""
    task_type = type_of(spec)
    meta: dict[str, object] = {"dataset": "SocKET", "split": split}
    if task_type == "PAIR":
        sides = text.split(SEP)
        if len(sides) != 2:
            raise SkipLine(f"a pair text needs exactly one {SEP} between its two sentences", field="text")
        meta.update(text_a=sides[0], text_b=sides[1])
    if task_type == "SPAN":
        label: str | float | dict[str, str | list[str]] = {"text": text, "spans": span_label(label_line)}
    elif task_type == "REG":
        label = regression_label(label_line)
    else:
        label = class_label(spec, label_line)
    return Example(item_id, spec.id, text, (), label, meta)


def class_label(spec: TaskSpec, value: object) -> str:
    """A class name or number, read as ``datasets.ClassLabel`` reads it, as its name."""
    text = str(value)
    for candidate in (text, text.strip()):
        if candidate in spec.labels:
            return candidate
    try:
        number = int(text.strip())
    except ValueError:
        number = -2
    if 0 <= number < len(spec.labels):
        return spec.labels[number]
    if number == -1:
        raise SkipLine("no label (-1)")
    raise ValueError(
        f"{text.strip()!r} is neither a class of {short_name(spec.id)} ({', '.join(spec.labels)}) "
        f"nor its number 0-{len(spec.labels) - 1}"
    )


def regression_label(value: object) -> float:
    try:
        number = float(str(value).strip())
    except ValueError:
        raise ValueError(f"expected a number, got {str(value).strip()!r}") from None
    if math.isnan(number):
        raise SkipLine("no label (NaN)")
    if math.isinf(number):
        raise ValueError(f"expected a finite number, got {str(value).strip()!r}")
    return number


def span_label(value: object) -> list[str]:
    """The gold spans of a span label (a Python literal, read with ``ast.literal_eval``)."""
    text = str(value).strip()
    try:
        parsed = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise ValueError(f"not a Python literal: {text[:80]!r}") from None
    if isinstance(parsed, dict) and len(parsed) == 1:
        parsed = next(iter(parsed.values()))
    elif isinstance(parsed, list) and all(isinstance(item, dict) and len(item) == 1 for item in parsed):
        parsed = [next(iter(item.values())) for item in parsed]
    if isinstance(parsed, str):
        parsed = [parsed]
    if not isinstance(parsed, list) or not all(isinstance(span, str) for span in parsed):
        raise ValueError(f"expected {{'NAME': ['span', ...]}}, got {text[:80]!r}")
    return parsed


def _check_label_list(spec: TaskSpec, path: Path) -> None:
    """A ``label_list.txt`` in the folder must name the table's classes, in order (the options map to them)."""
    if type_of(spec) == "SPAN" or not path.is_file():
        return
    found = [line.strip() for line in read_lines(path) if line.strip()]
    if found != list(spec.labels):
        raise InputError(
            path,
            f"names {found}, but the SocKET table has {list(spec.labels)} for "
            f"{short_name(spec.id)} (option i of the prompt means class i)",
        )


DATASET = Dataset(FOLDER, load, write_sample=write_sample, suite=SUITE)
