"""Decoded media for models that read raw frames and waveforms: sampled once, cached on disk.

``FrameSampler`` and ``WaveformSampler`` are encoders whose "features" are the decoded media
themselves (``(T, H, W, 3)`` uint8 frames; mono float32 samples), so the feature cache of the
media encoders (``FeatureCache``, same root, keyed by sampling settings and file content) keeps
them: a second condition, run or model over the same videos decodes nothing. ``MediaStore`` puts
a small in-memory table in front of the disk cache (a video is asked for once per question and
condition) and counts what was really decoded.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mmsoc.media.base import Encoder, MediaError
from mmsoc.media.cache import CachedEncoder, FeatureCache
from mmsoc.media.decode import clip_seconds, read_audio, read_frames


class FrameSampler(Encoder):
    """``num_frames`` uniform frames (or one every 1/``fps`` s) of a video file or frame folder, undecoded further."""

    modality = "frames"

    def __init__(self, num_frames: int | None = 8, fps: float | None = None, frames_fps: float = 3.0):
        super().__init__("decoded", num_frames=None if fps else num_frames, fps=fps, frames_fps=frames_fps)

    def load(self, path: Path) -> np.ndarray:
        s = self.settings
        return read_frames(path, num_frames=s["num_frames"], fps=s["fps"], frames_fps=s["frames_fps"])

    def embed(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        return inputs


class WaveformSampler(Encoder):
    """A mono waveform at ``sample_rate`` (16 kHz: what speech encoders of multimodal LLMs expect)."""

    modality = "waveform"

    def __init__(self, sample_rate: int = 16000, max_seconds: float | None = None):
        super().__init__("decoded", sample_rate=sample_rate, max_seconds=max_seconds)

    def load(self, path: Path) -> np.ndarray:
        return read_audio(path, self.settings["sample_rate"], self.settings["max_seconds"])

    def embed(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        return inputs


@dataclass(frozen=True)
class Clip:
    """Sampled frames of a video and the seconds the whole clip lasts (for the processors' video metadata)."""

    frames: np.ndarray
    seconds: float

    def keep(self, count: int | None) -> Clip:
        """The clip with ``count`` of its frames, evenly spaced (all of them for None or more)."""
        n = len(self.frames)
        if count is None or count >= n:
            return self
        index = np.linspace(0, n - 1, max(count, 1)).round().astype(int)
        return Clip(self.frames[index], self.seconds)

    def metadata(self) -> dict[str, Any]:
        """transformers' ``video_metadata`` for frames sampled uniformly over the clip: T frames at T/seconds fps."""
        n = len(self.frames)
        return {
            "total_num_frames": n,
            "fps": n / self.seconds if self.seconds > 0 else 1.0,
            "frames_indices": list(range(n)),
            "duration": self.seconds,
        }


class MediaStore:
    """Frames and waveforms by file path, decoded at most once per content and settings.

    ``decoded`` counts files really decoded by this store; ``disk_hits`` those read from the cache.
    """

    def __init__(
        self,
        cache: FeatureCache | None = None,
        num_frames: int | None = 8,
        fps: float | None = None,
        sample_rate: int = 16000,
        max_audio_seconds: float | None = None,
        memory: int = 64,
    ):
        cache = cache or FeatureCache()
        self.frames = CachedEncoder(FrameSampler(num_frames, fps), cache)
        self.audio = CachedEncoder(WaveformSampler(sample_rate, max_audio_seconds), cache)
        self.memory = memory
        self._recent: OrderedDict[tuple[str, str], Any] = OrderedDict()

    @property
    def settings(self) -> dict[str, Any]:
        """What decides the decoded media (for a run's configuration)."""
        return {"frames": dict(self.frames.encoder.settings), "audio": dict(self.audio.encoder.settings)}

    @property
    def decoded(self) -> int:
        return self.frames.encoder.encoded + self.audio.encoder.encoded

    @property
    def disk_hits(self) -> int:
        return self.frames.hits + self.audio.hits

    def clip(self, path: str | Path) -> Clip:
        """The sampled frames of a video file or frame folder; MediaError when it cannot be read."""
        return self._get("frames", str(path), lambda: Clip(self._one(self.frames, path), clip_seconds(path)))

    def waveform(self, path: str | Path) -> np.ndarray:
        """The waveform of an audio (or video) file; MediaError when it cannot be read."""
        return self._get("audio", str(path), lambda: self._one(self.audio, path))

    def _get(self, what: str, path: str, make: Any) -> Any:
        key = (what, path)
        if key in self._recent:
            self._recent.move_to_end(key)
            return self._recent[key]
        value = make()
        self._recent[key] = value
        while len(self._recent) > self.memory:
            self._recent.popitem(last=False)
        return value

    @staticmethod
    def _one(encoder: CachedEncoder, path: str | Path) -> np.ndarray:
        (result,) = encoder.encode_files([path])
        if isinstance(result, MediaError):
            raise result
        return result
