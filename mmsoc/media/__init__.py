"""Frozen modality encoders (video, audio, transcript) and their on-disk feature cache."""

from __future__ import annotations

from mmsoc.media.audio import AudioEncoder
from mmsoc.media.base import Encoder, EncoderSpec, MediaError
from mmsoc.media.cache import CachedEncoder, FeatureCache, default_cache_dir
from mmsoc.media.transcript import Cue, TranscriptEncoder, parse_subtitles, read_subtitles
from mmsoc.media.video import VideoEncoder

ENCODERS: dict[str, type[Encoder]] = {"video": VideoEncoder, "audio": AudioEncoder, "transcript": TranscriptEncoder}


def build_encoder(spec: EncoderSpec, **runtime) -> Encoder:
    """Rebuild an encoder from its spec; ``runtime`` holds options outside it (``device``, ``batch_size``)."""
    return ENCODERS[spec.modality](spec.model, **spec.settings, **runtime)


__all__ = ["AudioEncoder", "CachedEncoder", "Cue", "Encoder", "EncoderSpec", "FeatureCache", "MediaError",
           "TranscriptEncoder", "VideoEncoder", "build_encoder", "default_cache_dir", "parse_subtitles",
           "read_subtitles"]
