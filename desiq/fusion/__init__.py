"""The T5-fusion MCQA model over question, answer, transcript, video and audio inputs."""

from __future__ import annotations

from desiq.fusion.features import MediaFeatures, extract, pool_tokens
from desiq.fusion.model import FusionModel
from desiq.fusion.probe import FusionProbe
from desiq.fusion.runner import FusionConfig, FusionScorer, accuracy, default_encoders, fusion_accelerator, train_fusion

__all__ = ["FusionConfig", "FusionModel", "FusionProbe", "FusionScorer", "MediaFeatures", "accuracy",
           "default_encoders", "extract", "fusion_accelerator", "pool_tokens", "train_fusion"]
