"""A battle's media: paths kept relative to the data root, resolved only inside it, shown as pictures.

An image file is served as it is; a video file or a folder of frames is shown as up to ``FRAMES``
evenly spaced frames (PNG), decoded once per battle and kept in a small cache.
"""

from __future__ import annotations

import io
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mmsoc.core.io import InputError

FRAMES = 8
"""Frames shown per video (or folder of frames)."""
IMAGE_TYPES = {
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".png": "image/png",
    ".gif": "image/gif",
    ".bmp": "image/bmp",
    ".webp": "image/webp",
}


def data_root(data: str) -> Path:
    """The folder a data id names: a folder itself, the embedded sample, or where hub images are exported."""
    if data == "sample":
        from mmsoc.tasks.data.sample import ensure_sample

        return ensure_sample()
    if data == "hub" or data.startswith("hf://"):
        from mmsoc.core.paths import cache_root

        return cache_root() / "hub"
    return Path(data).expanduser()


def relative_media(root: Path, paths: Iterable[str]) -> tuple[str, ...]:
    """``paths`` relative to ``root`` (POSIX form); a path outside the root is left out."""
    base = root.resolve()
    out = []
    for path in paths:
        try:
            out.append(Path(path).resolve().relative_to(base).as_posix())
        except ValueError:
            continue
    return tuple(out)


def resolve_inside(root: Path, relative: str) -> Path:
    """``root / relative`` with links resolved; ValueError unless it lies inside ``root``."""
    base = root.resolve()
    path = (base / relative).resolve()
    if not path.is_relative_to(base):
        raise ValueError(f"{relative!r} lies outside the data root")
    return path


def check_media(battles: Iterable, source: str | Path) -> None:
    """Every battle's media resolve inside its data root (InputError naming the battle otherwise)."""
    roots: dict[str, Path] = {}
    for battle in battles:
        if not battle.media:
            continue
        root = roots.setdefault(battle.data, data_root(battle.data))
        for k, relative in enumerate(battle.media):
            try:
                resolve_inside(root, relative)
            except ValueError as err:
                raise InputError(source, f"battle {battle.id!r}: {err}", field=f"media[{k}]") from None


@dataclass(frozen=True)
class Picture:
    """One picture of a battle's media: a file served as is, PNG bytes of a frame, or why there is none."""

    label: str
    path: Path | None = None
    png: bytes | None = None
    problem: str = ""

    @property
    def media_type(self) -> str:
        if self.png is not None:
            return "image/png"
        return IMAGE_TYPES.get(self.path.suffix.lower(), "") if self.path else ""


class Pictures:
    """Pictures per battle (data roots resolved once, decoded frames cached for the last ``size`` battles)."""

    def __init__(self, size: int = 32):
        self._roots: dict[str, Path] = {}
        self._cache: OrderedDict[str, list[Picture]] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()  # the web server answers from several threads

    def of(self, battle) -> list[Picture]:
        if not battle.media:
            return []
        with self._lock:
            if battle.id in self._cache:
                self._cache.move_to_end(battle.id)
                return self._cache[battle.id]
            root = self._roots.setdefault(battle.data, data_root(battle.data))
            pictures = [picture for relative in battle.media for picture in _pictures(root, relative)]
            self._cache[battle.id] = pictures
            if len(self._cache) > self._size:
                self._cache.popitem(last=False)
            return pictures


def _pictures(root: Path, relative: str) -> list[Picture]:
    try:
        path = resolve_inside(root, relative)
    except ValueError as err:
        return [Picture(relative, problem=str(err))]
    if not path.exists():
        return [Picture(relative, problem="missing")]
    if path.is_file() and path.suffix.lower() in IMAGE_TYPES:
        return [Picture(relative, path=path)]
    return _frames(path, relative)


def _frames(path: Path, relative: str) -> list[Picture]:
    from PIL import Image

    from mmsoc.media.base import MediaError
    from mmsoc.media.decode import read_frames

    try:
        frames = read_frames(path, num_frames=FRAMES)
    except MediaError as err:
        return [Picture(relative, problem=err.reason)]
    out = []
    for k, frame in enumerate(frames):
        buffer = io.BytesIO()
        Image.fromarray(frame).save(buffer, format="PNG")
        out.append(Picture(f"{relative} (frame {k + 1} of {len(frames)})", png=buffer.getvalue()))
    return out
