"""The T5-fusion MCQA model over question, answer, transcript, video and audio inputs.

Two architectures (``desiq.fusion.architecture``): ``paper``, the official DeSIQ Concat model
(``desiq.fusion.paper``), and ``ours`` (``desiq.fusion.model``). Names are imported on first use, so
that importing ``desiq.fusion.architecture`` (the command line) does not import torch.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "MediaFeatures": "features",
    "extract": "features",
    "pool_tokens": "features",
    "FusionModel": "model",
    "PaperFusionModel": "paper",
    "FusionProbe": "fusion_probe",
    "FusionConfig": "config",
    "FusionScorer": "runner",
    "accuracy": "runner",
    "default_encoders": "config",
    "fusion_accelerator": "runner",
    "train_fusion": "runner",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'desiq.fusion' has no attribute {name!r}")
    return getattr(importlib.import_module(f"desiq.fusion.{_EXPORTS[name]}"), name)
