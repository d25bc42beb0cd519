"""Frozen modality encoders (video, audio, transcript) and their on-disk feature cache.

Names are imported on first use, so that reading a cache or a subtitle file loads no torch."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from mmsoc.core.startup import loading

if TYPE_CHECKING:
    from mmsoc.media.audio import AudioEncoder
    from mmsoc.media.base import Encoder, EncoderSpec, MediaError
    from mmsoc.media.cache import CachedEncoder, FeatureCache, default_cache_dir
    from mmsoc.media.transcript import Cue, TranscriptEncoder, parse_subtitles, read_subtitles
    from mmsoc.media.video import VideoEncoder

_HOMES = {
    "AudioEncoder": "audio",
    "Encoder": "base",
    "EncoderSpec": "base",
    "MediaError": "base",
    "CachedEncoder": "cache",
    "FeatureCache": "cache",
    "default_cache_dir": "cache",
    "Cue": "transcript",
    "TranscriptEncoder": "transcript",
    "parse_subtitles": "transcript",
    "read_subtitles": "transcript",
    "VideoEncoder": "video",
}
MODALITIES = {"video": "VideoEncoder", "audio": "AudioEncoder", "transcript": "TranscriptEncoder"}
"""Modality -> the name of its encoder class."""


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'mmsoc.media' has no attribute {name!r}")
    return getattr(importlib.import_module(f"mmsoc.media.{_HOMES[name]}"), name)


def build_encoder(spec: EncoderSpec, **runtime) -> Encoder:
    """Rebuild an encoder from its spec; ``runtime`` holds options outside it (``device``, ``batch_size``)."""
    with loading():
        return __getattr__(MODALITIES[spec.modality])(spec.model, **spec.settings, **runtime)


__all__ = [
    "AudioEncoder",
    "CachedEncoder",
    "Cue",
    "Encoder",
    "EncoderSpec",
    "FeatureCache",
    "MediaError",
    "TranscriptEncoder",
    "VideoEncoder",
    "build_encoder",
    "default_cache_dir",
    "parse_subtitles",
    "read_subtitles",
]
