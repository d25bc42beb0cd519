"""The append-only JSON Lines log a run writes its predictions to: a killed process keeps every whole row."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mmsoc.core import jsonvalues
from mmsoc.core.io import named_os_error


class JsonlAppender:
    """Append-only JSON Lines log: each row is written whole and flushed at once (a killed process keeps
    it); ``sync`` makes what was written durable on disk (once per batch), as ``close`` does."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _truncate_partial_last_line(self.path)
            self._handle = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 (held until close)
        except OSError as err:
            raise named_os_error(err, self.path) from None

    def append(self, row: dict[str, Any]) -> None:
        try:
            self._handle.write(jsonvalues.dumps(row, self.path, ensure_ascii=False) + "\n")
            self._handle.flush()
        except OSError as err:  # a full disk: the partial line is dropped by the next run
            raise named_os_error(err, self.path) from None

    def sync(self) -> None:
        try:
            os.fsync(self._handle.fileno())
        except OSError as err:
            raise named_os_error(err, self.path) from None

    def close(self) -> None:
        if self._handle.closed:
            return
        try:
            self.sync()
        finally:
            try:
                self._handle.close()
            except OSError as err:
                raise named_os_error(err, self.path) from None

    def __enter__(self) -> JsonlAppender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _truncate_partial_last_line(path: Path) -> None:
    """Drop a trailing line without a newline (left by a process killed mid-write)."""
    if not path.exists() or path.stat().st_size == 0:
        return
    data = path.read_bytes()
    if data.endswith(b"\n"):
        return
    keep = data.rfind(b"\n") + 1
    with open(path, "r+b") as handle:
        handle.truncate(keep)
