"""One progress display for every long step, on stderr only (stdout keeps the results, byte for byte).

On a terminal a step is a rich bar (description, bar, done/total, elapsed, time left); steps opened
inside another step share its display, one line each. When stderr is not a terminal (a log file, a
pipe, a batch job) a step writes plain lines instead, so a log shows life: one when it starts, one
when it ends, and between them one at every tenth of its total or change of description that comes
``QUIET_S`` seconds or more after the last line (a quick step writes two lines), and one at least
every ``EVERY_S`` seconds, even while a single unit takes long (the innermost open step writes it).
``enabled=False`` shows nothing at all::

    with steps("probe embed-linear: A4 fit", total=8) as bar:
        for ...:
            bar.describe("probe embed-linear: RIWA A4 score")
            bar.advance()

    for batch in track(batches, "embedding 2,048 option texts"):
        ...
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import IO, Any, TypeVar

T = TypeVar("T")

EVERY_S = 30.0
"""The longest the innermost plain-text step stays silent (a heartbeat line, even inside one long unit)."""
QUIET_S = 5.0
"""A tenth done or a description change is written as a line only when the last line is at least this old."""


class Bar:
    """A step shown nowhere (``enabled=False``); the shown kinds below override both methods."""

    def advance(self, n: int = 1, description: str | None = None) -> None:
        """Count ``n`` more units done; a new ``description`` replaces the step's."""

    def describe(self, description: str) -> None:
        self.advance(0, description)


class _LineBar(Bar):
    """Plain lines on a stream that is not a terminal."""

    def __init__(self, stream: IO[str], description: str, total: int | None):
        self.stream, self.label, self.description, self.total = stream, description, description, total
        self.done, self.start = 0, time.monotonic()
        self.last, self.milestone = self.start, 0
        self._lock, self._stop = threading.Lock(), threading.Event()
        self._write("started")
        _open_lines.append(self)
        self._beat = threading.Thread(target=self._heartbeat, name="progress", daemon=True)
        self._beat.start()

    def _heartbeat(self) -> None:
        """A line when no step wrote one for ``EVERY_S`` seconds (a long fit, a t-SNE), from the innermost step."""
        while not self._stop.wait(EVERY_S / 4):
            if _open_lines[-1:] == [self] and time.monotonic() - _last_line[0] >= EVERY_S:
                self._write(self._count())

    def advance(self, n: int = 1, description: str | None = None) -> None:
        self.done += n
        changed = description is not None and description != self.description
        if changed:
            self.description = description or self.description
        tenth = 10 * self.done // self.total if self.total and self.done < self.total else 0
        quiet = time.monotonic() - self.last >= QUIET_S
        if quiet and (tenth > self.milestone or changed):
            self.milestone = max(self.milestone, tenth)
            self._write(self._count())

    def close(self, finished: bool) -> None:
        """Stop the heartbeat; a ``finished`` step says so in a last line."""
        self._stop.set()
        self._beat.join()
        _open_lines.remove(self)
        if finished:
            self.description = self.label
            self._write(f"done, {self._count(ending=True)}")

    def _count(self, ending: bool = False) -> str:
        elapsed = time.monotonic() - self.start
        if not self.total:
            return f"{self.done} in {_duration(elapsed)}"
        share = f"{self.done}/{self.total} ({100 * self.done // self.total}%), {_duration(elapsed)}"
        left = elapsed * (self.total - self.done) / self.done if 0 < self.done < self.total else 0.0
        return share if ending or left < 1 else f"{share}, about {_duration(left)} left"

    def _write(self, what: str) -> None:
        with self._lock:
            self.last = _last_line[0] = time.monotonic()
            self.stream.write(f"{self.description}: {what}\n")
            self.stream.flush()


class _RichBar(Bar):
    """One task of the shared rich display."""

    def __init__(self, display: Any, description: str, total: int | None):
        from rich.markup import escape

        self.display, self.escape = display, escape
        self.task = display.add_task(escape(description), total=total)

    def advance(self, n: int = 1, description: str | None = None) -> None:
        shown = None if description is None else self.escape(description)
        self.display.update(self.task, advance=n, description=shown)


_last_line = [0.0]
"""When any plain-text step last wrote a line (``time.monotonic``)."""
_open_lines: list[_LineBar] = []
"""The plain-text steps open now, innermost last (only the innermost writes heartbeat lines)."""
_display: list[Any] = []
"""The rich display of the outermost step on a terminal, while it is open (steps inside it join it)."""


@contextmanager
def steps(description: str, total: int | None = None, enabled: bool = True) -> Iterator[Bar]:
    """A step of ``total`` units (None: unknown) shown on stderr while the block runs; see the module."""
    if not enabled:
        yield Bar()
        return
    stream = sys.stderr
    if not stream.isatty():
        bar, finished = _LineBar(stream, description, total), False
        try:
            yield bar
            finished = True
        finally:
            bar.close(finished)
        return
    if _display:
        shared = _RichBar(_display[-1], description, total)
        try:
            yield shared
        finally:
            _display[-1].remove_task(shared.task)
        return
    with _rich_display(stream) as display:
        _display.append(display)
        try:
            yield _RichBar(display, description, total)
        finally:
            _display.pop()


def track(items: Iterable[T], description: str, total: int | None = None, enabled: bool = True) -> Iterator[T]:
    """Each of ``items``, advancing a step by one per item (``total`` defaults to ``len(items)``)."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with steps(description, total, enabled) as bar:
        for item in items:
            yield item
            bar.advance()


@contextmanager
def _rich_display(stream: IO[str]) -> Iterator[Any]:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("{task.description}"),
        BarColumn(bar_width=20),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    # stdout is left alone: what a command prints there while a bar runs goes to stdout, not into the display
    with Progress(*columns, console=Console(file=stream), transient=True, redirect_stdout=False) as display:
        yield display


def _duration(seconds: float) -> str:
    """``42s``, ``3m05s``, ``1h02m``."""
    s = int(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"
