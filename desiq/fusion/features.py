"""Media features per video through the cached encoders, with missing media recorded, not fatal."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from desiq.data import media_path
from desiq.records import MCQAItem
from mmsoc.core.paths import OutsideRoot
from mmsoc.media import CachedEncoder, MediaError


def pool_tokens(array: np.ndarray, max_tokens: int) -> np.ndarray:
    """(tokens, dim) with at most ``max_tokens`` rows: consecutive rows are averaged in even groups."""
    array = np.atleast_2d(np.asarray(array, dtype=np.float32))
    if len(array) <= max_tokens:
        return array
    return np.stack([chunk.mean(axis=0) for chunk in np.array_split(array, max_tokens)])


def _pool_to(max_tokens: int, modality: str, array: np.ndarray) -> np.ndarray:
    return pool_tokens(array, max_tokens)


@dataclass
class MediaFeatures:
    """Pooled features per modality and video; ``errors`` says why a video's modality is masked."""

    arrays: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)
    errors: dict[str, dict[str, str]] = field(default_factory=dict)

    def get(self, modality: str, vid: str) -> np.ndarray | None:
        return self.arrays.get(modality, {}).get(vid)

    def masked(self, item: MCQAItem) -> list[str]:
        """Modalities of this item that are missing (and so masked)."""
        return [m for m, errors in self.errors.items() if item.video in errors]

    def missing_counts(self, items: Sequence[MCQAItem]) -> dict[str, int]:
        """Per modality, how many items had it masked (0 for modalities not used)."""
        counts = {"video": 0, "audio": 0, "transcript": 0}
        for item in items:
            for modality in self.masked(item):
                counts[modality] += 1
        return counts

    def dims(self) -> dict[str, int]:
        """Feature width of each modality that has at least one video's features."""
        return {m: next(iter(a.values())).shape[1] for m, a in self.arrays.items() if a}


def extract(
    items: Sequence[MCQAItem],
    root: Path | None,
    encoders: dict[str, CachedEncoder],
    pool: int | Callable[[str, np.ndarray], np.ndarray],
    batch_size: int = 16,
) -> MediaFeatures:
    """Encode every video's media once (cache first); without ``root`` every modality is missing.

    ``pool``: at most this many positions per medium (``pool_tokens``), or a function of (modality,
    features) that pools them.
    """
    if isinstance(pool, int):
        pool = functools.partial(_pool_to, pool)
    vids = sorted({item.video for item in items})
    out = MediaFeatures()
    for modality, encoder in encoders.items():
        out.arrays[modality], out.errors[modality] = {}, {}
        if root is None:
            out.errors[modality] = {vid: "no media folder" for vid in vids}
            continue
        paths = {}
        for vid in vids:
            try:
                paths[vid] = media_path(Path(root), modality, vid)
            except OutsideRoot as err:  # a vid_name that leads out of the media folder: masked, named
                out.errors[modality][vid] = str(err)
        for vid, result in zip(paths, encoder.encode_files(list(paths.values()), batch_size=batch_size)):
            if isinstance(result, MediaError):
                out.errors[modality][vid] = result.reason
            elif result.size == 0 or (pooled := pool(modality, result)).size == 0:
                out.errors[modality][vid] = "no features"
            else:
                out.arrays[modality][vid] = pooled
    return out
