"""Where mmsoc keeps what it generates or computes once (the sample data, hub images, encoder
features), and the rule that keeps every path read from data inside the folder it belongs to."""

from __future__ import annotations

import os
from pathlib import Path


class OutsideRoot(ValueError):
    """A path taken from data (a manifest, a label file, a hub row) leads outside its root."""


def cache_root() -> Path:
    """``$MMSOC_CACHE`` when set, else ``~/.cache/mmsoc``."""
    return Path(os.environ.get("MMSOC_CACHE") or Path.home() / ".cache" / "mmsoc")


def inside(root: str | os.PathLike, relative: str | os.PathLike) -> Path:
    """The resolved path of ``relative`` under ``root``; :class:`OutsideRoot` when it is absolute or,
    after resolving ``..`` and symlinks, lies outside ``root`` (also resolved).

    Nothing is opened: call this before reading any path that comes from data.
    """
    name = os.fspath(relative)
    if not name or Path(name).is_absolute() or Path(name).drive:
        raise OutsideRoot(f"{name!r} is not a relative path (data paths must be relative to {root})")
    base = Path(root).resolve()
    path = (base / name).resolve()
    if path != base and base not in path.parents:
        raise OutsideRoot(f"{name!r} leads outside {base} (to {path})")
    return path


def file_sha256(*paths: str | os.PathLike) -> str:
    """sha256 over the bytes of ``paths``, in order, read in 1 MiB blocks."""
    import hashlib

    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()
