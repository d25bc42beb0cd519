"""The output guard: no command writes over, or deletes, what it reads.

Every command of both apps has a row in one table (:data:`mmsoc.commands.writes.WRITES`): the parameters it
reads and those it writes. Before the command does any work, :func:`guard` refuses, in one line naming both:

- a file to write that is one of the inputs: the same file by resolved path or inode (symlinks and hard
  links alike), or a file that already lies in an input folder;
- a folder the command replaces whole that is, holds or lies in an input;
- a folder to write into that is not empty and holds nothing an mmsoc or desiq command writes (a folder of
  other files), unless the command's ``--overwrite`` says to replace it;
- a file where a folder is written, or a folder (``/``) where a file is.

Writing *beside* an input stays allowed: a new file in a data folder, scores or a report into a run folder,
a run resuming from its own predictions (a command's outputs are never its inputs).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from mmsoc.core.io import UsageError


@dataclass(frozen=True)
class Output:
    """One parameter a command writes to.

    ``file``: a file (and the files named ``beside`` it: its name plus each suffix); ``folder``: a folder the
    command writes the files ``inside`` into, keeping whatever else it holds; ``replaced``: a folder the
    command replaces whole (``inside``: the names it holds once written)."""

    param: str
    shape: Literal["file", "folder", "replaced"]
    inside: tuple[str, ...] = ()
    beside: tuple[str, ...] = ()


@dataclass(frozen=True)
class Writes:
    """What one command reads and writes, by parameter name.

    ``reads``: files, or folders any file of which may be read (a data folder); ``runs``: folders of an
    earlier command (run, model, adapter and report folders), of which the command reads the files our
    commands write; ``overwrite``: the parameter that lets a non-empty folder of other files be replaced."""

    reads: tuple[str, ...] = ()
    runs: tuple[str, ...] = ()
    outputs: tuple[Output, ...] = ()
    overwrite: str | None = None


@dataclass(frozen=True)
class Table:
    """Every command's row, by its command line (``mmsoc eval``, ``desiq fusion train``), and the names that
    tell our files from others."""

    rows: Mapping[str, Writes]
    run_files: frozenset[str]
    """The files a command reads from a folder of ``Writes.runs``."""

    @property
    def ours(self) -> frozenset[str]:
        """Every name a command writes into a folder."""
        return frozenset(name for row in self.rows.values() for output in row.outputs for name in output.inside)


@dataclass(frozen=True)
class Given:
    """One existing input path, by the flag that named it."""

    flag: str
    path: Path
    whole: bool
    """Any file inside may be read (a data folder), rather than only ``Table.run_files``."""


def guard(table: Table, writes: Writes, params: Mapping[str, Any], flag: Callable[[str], str]) -> None:
    """Raise :class:`UsageError` where the command's outputs would overwrite or delete one of its inputs, or mix
    its files into a folder of other files; ``params``: the command's values by parameter name, ``flag``: a
    parameter's name as typed."""
    given = [
        Given(flag(name), path, name in writes.reads)
        for name in (*writes.reads, *writes.runs)
        for path in _paths(params.get(name))
        if path.exists()
    ]
    overwrite = bool(writes.overwrite and params.get(writes.overwrite))
    hint = f", or {flag(writes.overwrite)} to replace its contents" if writes.overwrite else ""
    for output in writes.outputs:
        for target in _paths(params.get(output.param)):
            where = f"{flag(output.param)} {target}"
            if output.shape == "file":
                _check_file(where, target, output, given, table)
            else:
                _check_folder(where, target, output, given, table)
                if not overwrite and _holds_ours(target, table.ours) is False:
                    raise UsageError(
                        f"{where}: not empty, and nothing in it was written by mmsoc or desiq; "
                        f"pass a new or empty folder{hint}"
                    )


def _check_file(where: str, target: Path, output: Output, given: Sequence[Given], table: Table) -> None:
    if target.is_dir():
        raise UsageError(f"{where}: a folder, not a file; name the file to write")
    _check_written(where, target, given, table.run_files, in_ours=False)
    for suffix in output.beside:
        path = target.with_name(target.name + suffix)
        _check_written(f"{where}: writing {path}", path, given, table.run_files, in_ours=False)


def _check_folder(where: str, target: Path, output: Output, given: Sequence[Given], table: Table) -> None:
    if target.exists() and not target.is_dir():
        raise UsageError(f"{where}: a file, not a folder; name a folder to write into")
    if target.resolve() == target.resolve().parent:
        raise UsageError(f"{where}: the root folder, which is never written into; name a new folder")
    if output.shape == "replaced":
        _check_replaced(where, target, given)
        return
    in_ours = _holds_ours(target, table.ours)
    for name in output.inside:
        _check_written(f"{where}: writing {target / name}", target / name, given, table.run_files, in_ours)


def _paths(value: Any) -> list[Path]:
    """The paths a parameter's value names (none, one, or a list of them)."""
    if value is None or value == "":
        return []
    values = value if isinstance(value, (list, tuple)) else [value]
    return [Path(os.fspath(v)) for v in values if isinstance(v, (str, os.PathLike))]


def _check_written(
    where: str, path: Path, given: Iterable[Given], run_files: frozenset[str], in_ours: bool | None
) -> None:
    """``path``, a file the command writes (``where``: in words), against each input: the same file, or a file
    already there in an input folder that the command may read (in a data folder: any, unless the output
    folder is ours)."""
    for source in given:
        inside = path.exists() and _within(path, source.path)
        read = in_ours is not True if source.whole else path.name in run_files
        if _same(path, source.path) or (inside and read):
            raise UsageError(f"{where} would overwrite {source.flag} {source.path}; write elsewhere")


def _check_replaced(where: str, target: Path, given: Iterable[Given]) -> None:
    """A folder replaced whole must neither hold an input nor be part of one."""
    for source in given:
        if _within(source.path, target) or (target.exists() and _within(target, source.path)):
            raise UsageError(
                f"{where} is replaced whole and would delete {source.flag} {source.path}; pass another folder"
            )


def _holds_ours(folder: Path, ours: frozenset[str], depth: int = 1) -> bool | None:
    """Whether a folder holds a file of ours (a name a command writes, or its temporary
    ``.NAME.<pid>-<random>.tmp``) or, ``depth`` levels down, a visible folder that does (a folder of run
    folders); None where it is new, empty or cannot be listed."""
    try:
        with os.scandir(folder) as scan:
            entries = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in scan]
    except OSError:  # new, or unreadable: the write itself will say so, naming the folder
        return None
    if not entries:
        return None
    if any(name in ours or any(name.startswith(f".{known}.") for known in ours) for name, _ in entries):
        return True
    return depth > 0 and any(
        is_dir and not name.startswith(".") and _holds_ours(folder / name, ours, depth - 1) for name, is_dir in entries
    )


def _same(a: Path, b: Path) -> bool:
    """The same file or folder, however reached (resolved path, symlink, hard link)."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist
        return False


def _within(path: Path, folder: Path) -> bool:
    """``path`` is ``folder`` or lies inside it, once both are resolved."""
    path, folder = path.resolve(), folder.resolve()
    return path == folder or folder in path.parents
