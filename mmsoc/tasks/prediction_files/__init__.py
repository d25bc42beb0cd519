"""Prediction files of other tools, scored by ``mmsoc score``: a registry of formats, one module each.

Every module of this package (and a plugin module) declares ``FORMAT = PredictionFormat(...)``: its name
(``--format``), how it reads a file (or folder) into scorable rows per task, and, for files of a whole
suite, how each task's metrics are reported and averaged. The default, ``rows``, reads JSONL/CSV rows of
(id, prediction, reference) for one task and writes flat metrics.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmsoc.core.io import InputError
from mmsoc.core.registry import Registry

PARSERS = ("official", "lenient")
"""How a suite format reads answers: as the suite's official script does (default), or leniently."""


class RowError(Exception):
    """A bad row: the reader adds file and line and records it as an InputError message."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message, self.field = message, field

    def located(self, path: str | Path, line: int | None) -> str:
        return str(InputError(path, self.message, line=line, field=self.field))


@dataclass
class PredictionFile:
    """The scorable rows of a predictions file, the rows skipped (each with file, line and field) and notes.

    Ids are the strings the file writes (a JSON number id as Python writes the number: ``1``, ``1.0``)."""

    ids: list[str] = field(default_factory=list)
    predictions: list[object] = field(default_factory=list)
    references: list[object] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What the reader noticed but scored as written (ids that differ only in spelling)."""


@dataclass(frozen=True)
class ScoreRequest:
    """What ``mmsoc score`` asks of a format."""

    path: Path
    task: str | None = None
    """A task name (``--task``); suite formats resolve it in their suite."""
    data: str | None = None
    """Where references come from, for formats whose files hold predictions only (``--data``)."""
    parser: str = "official"
    penalize_missing: bool = False


@dataclass(frozen=True)
class PredictionFormat:
    """A file format: ``read`` gives the rows of each task in it (task id -> rows); ``view`` (suite formats)
    turns a task's metrics into its entry of metrics.json, ``averages`` the entries into the suite's summary.
    Without ``view`` the format holds one task and metrics.json is that task's flat metrics."""

    name: str
    description: str
    read: Callable[[ScoreRequest], dict[str, PredictionFile]]
    view: Callable[[str, Mapping[str, float | None], ScoreRequest], dict[str, Any]] | None = None
    averages: Callable[[dict[str, dict[str, Any]]], dict[str, Any]] | None = None
    options: tuple[str, ...] = ()
    """Which of ``parser`` and ``penalize_missing`` the format applies (others are refused when set)."""

    def check(self, request: ScoreRequest) -> None:
        """ValueError naming an option set that this format does not apply."""
        given = {"parser": request.parser != "official", "penalize_missing": request.penalize_missing}
        unused = [name for name, set_ in given.items() if set_ and name not in self.options]
        if unused:
            flags = ", ".join("--" + name.replace("_", "-") for name in unused)
            raise ValueError(f"{flags} does not apply to --format {self.name}")


PREDICTION_FORMATS: Registry[PredictionFormat] = Registry("prediction format")
PREDICTION_FORMATS.discover(
    "mmsoc.tasks.prediction_files",
    lambda module: [(f.name, f) for f in [getattr(module, "FORMAT", None)] if isinstance(f, PredictionFormat)],
)
"""A plugin module's ``FORMAT`` joins when it is a ``PredictionFormat`` (an ``MCQAFormat`` goes to desiq)."""


def prediction_format_help() -> str:
    """The ``--format`` help of ``mmsoc score``: every prediction-file format (plugins too)."""
    names = ", ".join(name for name, _, _ in PREDICTION_FORMATS.known())
    return f"Format of the predictions file: {names} (`mmsoc list formats` describes each)."
