"""Safe file I/O: atomic writes, JSON Lines with line-numbered errors."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal, overload


class UsageError(Exception):
    """A failure the user can act on (a taken folder, an unreachable hub, a model that cannot do this):
    the command line reports it in one line."""


class InputError(ValueError):
    """Bad input, located by file, line and field."""

    def __init__(self, path: str | os.PathLike, message: str, line: int | None = None, field: str | None = None):
        self.path, self.line, self.field = str(path), line, field
        where = self.path + (f", line {line}" if line is not None else "")
        what = f"field '{field}': " if field else ""
        super().__init__(f"{where}: {what}{message}")


def _umask() -> int:
    """The process umask, read without changing it where the system says it (Linux), else set and restored."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", **kwargs: Any) -> Iterator[Any]:
    """Write to a temporary file beside ``path`` and rename it over ``path`` on success.

    A crash mid-write leaves the previous file (or none) in place, never a half file. The file
    gets the permissions a plain ``open()`` would give it: those of the file it replaces, else
    0666 less the umask.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, path.stat().st_mode & 0o7777 if path.exists() else 0o666 & ~_umask())
        with os.fdopen(fd, mode, **kwargs) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(path: str | os.PathLike, text: str) -> None:
    with atomic_open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def write_json(path: str | os.PathLike, obj: Any) -> None:
    write_text(path, json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def write_jsonl(path: str | os.PathLike, rows: Iterable[dict[str, Any]]) -> None:
    """Write rows as JSON Lines (``json.dumps`` defaults: the Social-IQ release's own style)."""
    with atomic_open(path, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")


@overload
def read_jsonl(path: str | os.PathLike, skip_bad: Literal[False] = False) -> Iterator[tuple[int, dict[str, Any]]]: ...


@overload
def read_jsonl(path: str | os.PathLike, skip_bad: bool) -> Iterator[tuple[int, dict[str, Any] | InputError]]: ...


def read_jsonl(path: str | os.PathLike, skip_bad: bool = False) -> Iterator[tuple[int, dict[str, Any] | InputError]]:
    """Yield (line number, object) for each non-blank line; a line that is not a JSON object raises InputError.

    With ``skip_bad`` such a line yields (line number, InputError) instead and reading goes on; a
    line that is not UTF-8 text stops reading with an InputError naming it either way.
    """
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            line = decode_line(raw, path, number)
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as err:
                obj = InputError(path, f"invalid JSON ({err.msg} at column {err.colno})", line=number)
            else:
                if not isinstance(obj, dict):
                    obj = InputError(path, "expected a JSON object", line=number)
            if isinstance(obj, InputError) and not skip_bad:
                raise obj
            yield number, obj


def decode_line(raw: bytes, path: str | os.PathLike, line: int) -> str:
    """One line of a text file as UTF-8 (a leading byte-order mark dropped); InputError naming file and line."""
    try:
        return raw.decode("utf-8-sig" if line == 1 else "utf-8")
    except UnicodeDecodeError as err:
        raise InputError(path, f"not UTF-8 text (byte {err.start + 1} of the line is {raw[err.start]:#04x}); "
                               "save the file as UTF-8", line=line) from None


class JsonlAppender:
    """Append-only JSON Lines log: each row is written whole and flushed at once (a killed process keeps
    it); ``sync`` makes what was written durable on disk (once per batch), as ``close`` does."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _truncate_partial_last_line(self.path)
        self._handle = open(self.path, "a", encoding="utf-8")

    def append(self, row: dict[str, Any]) -> None:
        self._handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        self._handle.flush()

    def sync(self) -> None:
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        if not self._handle.closed:
            self.sync()
            self._handle.close()

    def __enter__(self) -> "JsonlAppender":
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
