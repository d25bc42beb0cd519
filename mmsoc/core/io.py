"""Safe file I/O: atomic writes, JSON Lines with line-numbered errors."""

from __future__ import annotations

import codecs
import errno
import fcntl
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal, overload

from mmsoc.core import jsonvalues


class UsageError(Exception):
    """A failure the user can act on (a taken folder, an unreachable hub, a model that cannot do this):
    the command line reports it in one line, and ``detail`` (what a short line leaves out) on a second."""

    def __init__(self, message: str, detail: str | None = None):
        super().__init__(message)
        self.detail = detail


class RunFailed(Exception):
    """A run that ended, its files written, without doing what it was asked: exit status 1 (runners.failures)."""


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


def _named(err: OSError, path: Path) -> OSError:
    """``err`` as an OSError of the same class naming ``path`` (the file the user asked for, not a temporary)."""
    if err.errno is None:
        return err
    named = type(err)(err.errno, err.strerror, str(path))
    named.__cause__ = err
    return named


# temporaries ---------------------------------------------------------------------------------
# A file or folder being written is built beside its target as ``.NAME.<pid>-<random>.tmp`` (files) or
# ``.NAME.<pid>-<random>.partial`` (folders) and renamed into place once complete. The writer holds
# an flock on it until then. A process killed mid-write leaves its temporary behind; the next write of
# the same target removes it, but only when its process is gone and nobody holds its lock, so a
# concurrent writer's temporary is never touched.


def _temp_prefix(target: Path) -> str:
    return f".{target.name}.{os.getpid()}-"


def _lock_fd(fd: int) -> None:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def _abandoned(path: Path) -> bool:
    """Whether the temporary at ``path`` was left by a process that is gone and holds no lock on it."""
    pid = int(path.name.rsplit(".", 2)[1].split("-", 1)[0])
    if pid == os.getpid() or _process_alive(pid):
        return False
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        _lock_fd(fd)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def remove_stale_temporaries(target: str | os.PathLike) -> list[Path]:
    """Remove the temporaries that killed writers of ``target`` left beside it (see above); returns them."""
    target = Path(target)
    ours = re.compile(re.escape(f".{target.name}.") + r"[0-9]+-[a-z0-9_]+\.(tmp|partial)")
    removed: list[Path] = []
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return removed
    for entry in entries:
        if not ours.fullmatch(entry.name):
            continue
        path = Path(entry.path)
        if not _abandoned(path):
            continue
        try:
            shutil.rmtree(path) if entry.is_dir(follow_symlinks=False) else path.unlink()
        except FileNotFoundError:  # another process cleaned it first
            continue
        removed.append(path)
    return removed


@contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", **kwargs: Any) -> Iterator[Any]:
    """Write to a temporary file beside ``path`` and rename it over ``path`` on success.

    A crash mid-write leaves the previous file (or none) in place, never a half file; a failed write
    removes its temporary, and temporaries left by killed writers are removed by the next write of
    ``path``. The file gets the permissions a plain ``open()`` would give it: those of the file it
    replaces, else 0666 less the umask. An OSError of the write (read-only or full disk) names ``path``.
    """
    path = Path(path)
    tmp: str | None = None
    in_body = False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(path)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=_temp_prefix(path), suffix=".tmp")
        _lock_fd(fd)
        os.fchmod(fd, path.stat().st_mode & 0o7777 if path.exists() else 0o666 & ~_umask())
        with os.fdopen(fd, mode, **kwargs) as handle:
            in_body = True
            yield handle
            in_body = False
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as err:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError) and (not in_body or _ours(err, tmp)):
            raise _named(err, path) from None
        raise


def _ours(err: OSError, temporary: str | os.PathLike | None) -> bool:
    """Whether ``err``, raised while the caller wrote, came from writing the temporary: it names it, or
    names no file and is a write's failure (a full or read-only disk), not a read of another file."""
    if err.filename is not None:
        return temporary is not None and str(Path(temporary)) in str(err.filename)
    return err.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS)


@contextmanager
def building_folder(target: str | os.PathLike) -> Iterator[Path]:
    """A new temporary folder beside ``target`` to build its next version in (removed on failure);
    put it in place with :func:`swap_in_folder`. Folders left by killed builders are removed first.
    An OSError of writing into it (read-only or full disk) names ``target``."""
    target = Path(target)
    build: Path | None = None
    fd: int | None = None
    in_body = False
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(target)
        build = Path(tempfile.mkdtemp(dir=target.parent, prefix=_temp_prefix(target), suffix=".partial"))
        fd = os.open(build, os.O_RDONLY)
        _lock_fd(fd)
        in_body = True
        yield build
    except OSError as err:
        if not in_body or _ours(err, build):
            raise _named(err, target) from None
        raise
    finally:
        if fd is not None:
            os.close(fd)
        if build is not None and build.exists():
            shutil.rmtree(build, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one atomic step (Linux ``renameat2(RENAME_EXCHANGE)``); False where unsupported."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if not hasattr(libc, "renameat2"):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if libc.renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def swap_in_folder(build: Path, target: Path) -> None:
    """Put the complete folder ``build`` at ``target`` in one rename; the folder it replaces is deleted.

    Readers see the old folder or the new one, never a mix: a new or empty ``target`` is replaced by
    ``rename``, a non-empty one by an atomic exchange (Linux). Where the system cannot exchange, the old
    folder is moved aside first; a kill between the two renames then leaves no ``target`` (and the old
    folder as ``.NAME.old``), never a mix.
    """
    try:
        if target.is_dir() and not any(target.iterdir()):
            target.rmdir()
        if not target.exists():
            os.replace(build, target)
            return
        if not _exchange(build, target):
            old = target.with_name(f".{target.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(target, old)
            os.replace(build, target)
            build = old
        shutil.rmtree(build)
    except OSError as err:
        raise _named(err, target) from None


def check_writable(folder: str | os.PathLike) -> None:
    """Create ``folder`` if needed and prove a file can be made in it: a read-only place fails now, with
    an OSError naming it, rather than after hours of work."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".write-check.")
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise _named(err, folder) from None


def write_text(path: str | os.PathLike, text: str) -> None:
    with atomic_open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def write_json(path: str | os.PathLike, obj: Any) -> None:
    """Write standard JSON (a NaN or infinity is refused, naming the field) atomically."""
    write_text(path, jsonvalues.dumps(obj, path, indent=2, ensure_ascii=False) + "\n")


def write_jsonl(path: str | os.PathLike, rows: Iterable[dict[str, Any]]) -> None:
    """Write rows as standard JSON Lines (otherwise ``json.dumps`` defaults: the Social-IQ release's style)."""
    with atomic_open(path, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(jsonvalues.dumps(row, path) + "\n")


@overload
def read_jsonl(path: str | os.PathLike, skip_bad: Literal[False] = False) -> Iterator[tuple[int, dict[str, Any]]]: ...


@overload
def read_jsonl(path: str | os.PathLike, skip_bad: bool) -> Iterator[tuple[int, dict[str, Any] | InputError]]: ...


def read_jsonl(path: str | os.PathLike, skip_bad: bool = False) -> Iterator[tuple[int, dict[str, Any] | InputError]]:
    """Yield (line number, object) for each non-blank line; a line that is not a JSON object, or holds a NaN
    or infinity (not standard JSON), raises InputError naming it (and the field).

    With ``skip_bad`` such a line yields (line number, InputError) instead and reading goes on; a
    line that is not UTF-8 text stops reading with an InputError naming it either way.
    """
    try:
        with open(path, "rb") as handle:
            yield from _parse_lines(handle, path, skip_bad)
    except OSError as err:  # unreadable (EACCES, EIO): named, like a bad line
        raise _named(err, Path(path)) from None


def _parse_lines(
    handle: Any, path: str | os.PathLike, skip_bad: bool
) -> Iterator[tuple[int, dict[str, Any] | InputError]]:
    for number, raw in enumerate(handle, start=1):
        line = decode_line(raw, path, number)
        if not line.strip():
            continue
        try:
            obj = jsonvalues.loads(line)
        except json.JSONDecodeError as err:
            obj = InputError(path, f"invalid JSON ({err.msg} at column {err.colno})", line=number)
        except jsonvalues.NonFinite as err:
            obj = InputError(path, str(err), line=number, field=err.field)
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
        raise _not_utf8(path, line, err.start + 1, raw[err.start]) from None


def read_text(path: str | os.PathLike) -> str:
    """A whole text file (CSV, subtitles) as UTF-8, a leading byte-order mark dropped; InputError naming
    file and line where it is not UTF-8."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise _named(err, Path(path)) from None
    data = data[len(codecs.BOM_UTF8) :] if data.startswith(codecs.BOM_UTF8) else data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line_start = data.rfind(b"\n", 0, err.start) + 1
        raise _not_utf8(
            path, data.count(b"\n", 0, err.start) + 1, err.start - line_start + 1, data[err.start]
        ) from None


def _not_utf8(path: str | os.PathLike, line: int, column: int, byte: int) -> InputError:
    return InputError(
        path, f"not UTF-8 text (byte {column} of the line is {byte:#04x}); save the file as UTF-8", line=line
    )


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
            raise _named(err, self.path) from None

    def append(self, row: dict[str, Any]) -> None:
        try:
            self._handle.write(jsonvalues.dumps(row, self.path, ensure_ascii=False) + "\n")
            self._handle.flush()
        except OSError as err:  # a full disk: the partial line is dropped by the next run
            raise _named(err, self.path) from None

    def sync(self) -> None:
        try:
            os.fsync(self._handle.fileno())
        except OSError as err:
            raise _named(err, self.path) from None

    def close(self) -> None:
        if self._handle.closed:
            return
        try:
            self.sync()
        finally:
            try:
                self._handle.close()
            except OSError as err:
                raise _named(err, self.path) from None

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
