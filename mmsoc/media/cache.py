"""On-disk feature cache keyed by (encoder and its settings, input content).

Entries are ``.npy`` files named by sha256(encoder key + content hash) and written atomically, so
a killed run never leaves a corrupt entry and a second run over the same media decodes nothing.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np

from mmsoc.core.io import atomic_open
from mmsoc.core.paths import cache_root
from mmsoc.media.base import Encoder, MediaError
from mmsoc.media.decode import content_hash, require_file


def default_cache_dir() -> Path:
    """``features/`` under the mmsoc cache root (``$MMSOC_CACHE`` or ``~/.cache/mmsoc``)."""
    return cache_root() / "features"


@dataclass(frozen=True)
class CacheStats:
    modality: str
    entries: int
    bytes: int


class FeatureCache:
    """Feature arrays on disk under ``root/<modality>/<key[:2]>/<key>.npy``."""

    def __init__(self, root: str | Path | None = None):
        self.root = Path(root) if root is not None else default_cache_dir()

    def path(self, encoder: Encoder, digest: str) -> Path:
        key = hashlib.sha256(f"{encoder.key}\0{digest}".encode()).hexdigest()
        return self.root / encoder.modality / key[:2] / f"{key}.npy"

    def get(self, path: Path) -> np.ndarray | None:
        """The cached array, or None when the entry is missing or unreadable (it is then recomputed)."""
        try:
            return np.load(path, allow_pickle=False)
        except (OSError, ValueError, EOFError):
            return None

    def put(self, path: Path, array: np.ndarray) -> None:
        with atomic_open(path, "wb") as handle:
            np.save(handle, array, allow_pickle=False)

    def stats(self) -> list[CacheStats]:
        """Entries and bytes per modality."""
        if not self.root.is_dir():
            return []
        out = []
        for folder in sorted(p for p in self.root.iterdir() if p.is_dir()):
            files = list(folder.glob("*/*.npy"))
            out.append(CacheStats(folder.name, len(files), sum(f.stat().st_size for f in files)))
        return out

    def clear(self, modality: str | None = None) -> int:
        """Delete all entries (or one modality's); returns how many were removed."""
        folders = [self.root / modality] if modality else [p for p in self.root.glob("*") if p.is_dir()]
        removed = 0
        for folder in folders:
            if folder.is_dir():
                removed += len(list(folder.glob("*/*.npy")))
                shutil.rmtree(folder)
        return removed


class CachedEncoder:
    """An encoder behind the feature cache: only files never seen with these settings are encoded."""

    def __init__(self, encoder: Encoder, cache: FeatureCache | None = None):
        self.encoder = encoder
        self.cache = cache or FeatureCache()
        self.hits = 0

    def encode_files(self, paths: Sequence[str | Path], batch_size: int = 16) -> list[np.ndarray | MediaError]:
        """Features per file (a MediaError in place of an unreadable file), cached files first."""
        results: list[np.ndarray | MediaError | None] = [None] * len(paths)
        todo: list[tuple[int, Path]] = []
        for k, path in enumerate(map(Path, paths)):
            try:
                require_file(path)
                entry = self.cache.path(self.encoder, content_hash(path))
            except MediaError as err:
                results[k] = err
                continue
            results[k] = self.cache.get(entry)
            if results[k] is None:
                todo.append((k, entry))
            else:
                self.hits += 1
        for start in range(0, len(todo), batch_size):
            chunk = todo[start : start + batch_size]
            for (k, entry), result in zip(chunk, self.encoder.encode_files([paths[k] for k, _ in chunk])):
                if not isinstance(result, MediaError):
                    self.cache.put(entry, result)
                results[k] = result
        return cast("list[np.ndarray | MediaError]", results)  # every file has its features or its error now
