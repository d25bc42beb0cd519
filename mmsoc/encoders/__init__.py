"""Frozen modality encoders (image, video, audio, transcript) and their on-disk feature cache."""

from __future__ import annotations

from mmsoc.encoders.audio import AudioEncoder
from mmsoc.encoders.base import Encoder, EncoderSpec, MediaError
from mmsoc.encoders.cache import CachedEncoder, FeatureCache, default_cache_dir
from mmsoc.encoders.image import ImageEncoder
from mmsoc.encoders.transcript import Cue, TranscriptEncoder, parse_subtitles, read_subtitles
from mmsoc.encoders.video import VideoEncoder

ENCODERS: dict[str, type[Encoder]] = {
    "image": ImageEncoder, "video": VideoEncoder, "audio": AudioEncoder, "transcript": TranscriptEncoder}


def build_encoder(spec: EncoderSpec, **runtime) -> Encoder:
    """Rebuild an encoder from its spec; ``runtime`` holds options outside it (``device``, ``batch_size``)."""
    return ENCODERS[spec.modality](spec.model, **spec.settings, **runtime)


__all__ = ["AudioEncoder", "CachedEncoder", "Cue", "Encoder", "EncoderSpec", "FeatureCache",
           "ImageEncoder", "MediaError", "TranscriptEncoder", "VideoEncoder", "build_encoder",
           "default_cache_dir", "parse_subtitles", "read_subtitles"]
