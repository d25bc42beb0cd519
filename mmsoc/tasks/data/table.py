"""Datasets whose items are the rows of a table, declared: which columns are the id, the text, the image
and the label (and how a raw label maps to the task's), one :class:`Table` per task.

:class:`TableReader` turns the numbered rows of a table into examples by its tasks' declarations; every
row is read in the same order (id, text, image name, label, or the label before the image name, then the
image is checked), so the first bad field of a row is the one an :class:`mmsoc.core.io.InputError` names
(file, line, field).
:func:`split_file_loader` reads such a table from one file per split.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from mmsoc.core.io import InputError, read_jsonl
from mmsoc.core.records import Example
from mmsoc.tasks.data.dataset import PAPER_OPTIONS, Loader, LoadOptions
from mmsoc.tasks.data.images import resolve_image
from mmsoc.tasks.data.result import ItemProblem, LoadResult
from mmsoc.tasks.data.rows import Row, collect_examples, existing_file, require, text_value
from mmsoc.tasks.spec import TaskSpec

Columns = tuple[str, ...]
"""Column names of one value: the first present, non-empty one is read."""
Label = str | list[str]
"""A gold label, or the labels of a multi-label item."""


@dataclass(frozen=True)
class Cell:
    """One row being read, with where it comes from (for errors) and the load options."""

    row: Row
    source: str | os.PathLike
    line: int
    options: LoadOptions

    def require(self, names: str | Columns) -> Any:
        """The first present, non-empty value among ``names``; InputError naming file, line and field if none."""
        return require(self.row, names, self.source, self.line)

    def text(self, names: Columns) -> str:
        """The first non-empty value among ``names``, stripped, else ''."""
        return text_value(self.row, names)

    def present(self, names: Columns) -> str:
        """The first of ``names`` with a non-empty value (the field an error names), else the first name."""
        return next((name for name in names if str(self.row.get(name) or "").strip()), names[0])

    def fail(self, message: str, field: str) -> NoReturn:
        raise InputError(self.source, message, line=self.line, field=field)


@dataclass(frozen=True)
class Table:
    """How one task's examples are read from the rows of a table."""

    title: str
    """The ``dataset`` of every example's meta."""
    image: str | Columns
    """The column of the image file name, relative to the image folder (required)."""
    label: str | Columns | Callable[[Cell], Label]
    """The label column (its value as a string) or a rule computing the label."""
    labels: Mapping[str, str] | None = None
    """Raw value (lower case, spaces as ``_``) -> label; another value is an error listing the known ones."""
    strip_label: bool = False
    """Whether a label read from its column is stripped of surrounding whitespace."""
    id: str | Columns | Callable[[Cell], str] | None = "id"
    """The id column (required), a rule, or None: the image file name is the id."""
    id_prefix: str = ""
    """Put before every id (items of two datasets in one task stay apart)."""
    text: Columns | Callable[[Cell], str] = ()
    """The text columns (the first non-empty, stripped; none: no text) or a rule."""
    label_first: bool = False
    """Read the label before the image name (which of the two an error names when both are bad)."""

    def example(self, spec: TaskSpec, cell: Cell, image_root: Path, split: str, problems: list[ItemProblem]) -> Example:
        """The example of one row; image problems go to ``problems``."""
        images = _columns(self.image)
        image = str(cell.require(images)) if self.id is None else ""
        item_id = self.id_prefix + (image if self.id is None else _value(self.id, cell))
        text = self.text(cell) if callable(self.text) else cell.text(self.text)
        label = self._label(cell) if self.label_first else None
        image = image or str(cell.require(images))
        label = label if self.label_first else self._label(cell)
        found = resolve_image(image_root, image, item_id, cell.source, cell.line, cell.present(images), problems)
        return Example(item_id, spec.id, text, found, label, {"dataset": self.title, "split": split})

    def _label(self, cell: Cell) -> Label:
        if callable(self.label):
            return self.label(cell)
        names = _columns(self.label)
        if self.labels is None:
            value = str(cell.require(names))
            return value.strip() if self.strip_label else value
        field = cell.present(names)
        raw = str(cell.require(names)).strip().lower().replace(" ", "_")
        if raw not in self.labels:
            cell.fail(f"unknown value {raw!r} (expected one of {', '.join(self.labels)})", field)
        return self.labels[raw]


def _columns(names: str | Columns) -> Columns:
    return (names,) if isinstance(names, str) else names


def _value(rule: str | Columns | Callable[[Cell], str], cell: Cell) -> str:
    return rule(cell) if callable(rule) else str(cell.require(rule))


@dataclass(frozen=True)
class TableReader:
    """The rows reader of a table dataset (a :data:`mmsoc.tasks.data.dataset.RowsReader`): task id -> its
    :class:`Table`, so that tasks reading one table differently (e.g. OCR) each have a declaration."""

    tables: Mapping[str, Table]

    def __call__(
        self,
        spec: TaskSpec,
        rows: Iterable[tuple[int, Row]],
        source: str | os.PathLike,
        image_root: Path,
        split: str,
        limit: int | None = None,
        options: LoadOptions = PAPER_OPTIONS,
    ) -> LoadResult:
        """Examples of ``spec`` from numbered rows, until ``limit``, with the problems recorded on the way."""
        table = self.tables[spec.id]

        def example(line: int, row: Row, problems: list[ItemProblem]) -> Example:
            return table.example(spec, Cell(row, source, line, options), image_root, split, problems)

        return collect_examples(rows, limit, example)


def split_file_loader(
    read: TableReader, name: str = "{split}.jsonl", image_root: Callable[[Path], Path] = Path
) -> Loader:
    """A loader reading the JSONL file ``name`` (with ``{split}`` and ``{task}``) of the dataset folder, its
    images relative to ``image_root(folder)`` (the folder itself by default)."""

    def load(
        spec: TaskSpec, root: Path, split: str, limit: int | None = None, options: LoadOptions = PAPER_OPTIONS
    ) -> LoadResult:
        path = existing_file(root, name.format(split=split, task=spec.id))
        return read(spec, read_jsonl(path), path, image_root(root), split, limit, options)

    return load
