"""Places that fail: a read-only folder, a full filesystem, a file that cannot be read.

Failing places and what really fails as root (root ignores permission bits, so ``chmod`` alone
makes nothing read-only for it):

* read-only folder: ``chmod 0555`` for other users; as root a read-only bind mount of the folder
  (``mount --bind`` + ``remount,ro``: writes fail with EROFS); the test is skipped where neither works.
* full folder: a 64 KiB tmpfs mounted on it and filled up (writes fail with ENOSPC); skipped where
  ``mount`` is not allowed.
* unreadable input: ``chmod 0000`` for other users; as root a symlink to ``/proc/self/mem``, which
  opens but fails every read at offset 0 with EIO.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = os.geteuid() == 0


def _mount(*args: str) -> bool:
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


def _umount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


@contextmanager
def read_only(folder: Path) -> Iterator[Path]:
    """``folder`` (with what it holds) made read-only for this process while the block runs."""
    if not ROOT:
        folder.chmod(0o555)
        try:
            yield folder
        finally:
            folder.chmod(0o755)
        return
    if not (_mount("--bind", str(folder), str(folder)) and _mount("-o", "remount,ro,bind", str(folder))):
        _umount(folder)
        pytest.skip("no way to make a read-only folder for root here (mount --bind not allowed)")
    try:
        yield folder
    finally:
        _umount(folder)


@contextmanager
def no_space(folder: Path) -> Iterator[Path]:
    """A new folder ``folder/data`` on a filesystem with no space left (ENOSPC on the first byte written)."""
    folder.mkdir(parents=True, exist_ok=True)
    if not _mount("-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)):
        pytest.skip("cannot mount a small tmpfs here, so no full filesystem to write to")
    try:
        fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError:
            pass
        finally:
            os.close(fd)
        (folder / "data").mkdir()
        yield folder / "data"
    finally:
        _umount(folder)


def make_unreadable(path: Path, text: str = "") -> Path:
    """``path`` as a file that exists but cannot be read (see the module docstring)."""
    if ROOT:
        path.symlink_to("/proc/self/mem")
    else:
        path.write_text(text)
        path.chmod(0)
    return path
