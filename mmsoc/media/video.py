"""Video encoder: sampled frames (decord or a frame folder) embedded by an image encoder."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mmsoc.media.base import Encoder
from mmsoc.media.decode import read_frames
from mmsoc.media.image import FrameEmbedder


class VideoEncoder(Encoder):
    """(frames x dim) features: ``num_frames`` uniform frames, or one every 1/``fps`` seconds."""

    modality = "video"

    def __init__(
        self,
        model: str = "ViT-B-32",
        pretrained: str | None = "openai",
        normalize: bool = True,
        num_frames: int | None = 8,
        fps: float | None = None,
        batch_size: int = 32,
        device: str = "cpu",
    ):
        self.images = FrameEmbedder(model, pretrained, normalize, batch_size=batch_size, device=device)
        super().__init__(model, **self.images.settings, num_frames=None if fps else num_frames, fps=fps)

    def load(self, path: Path) -> np.ndarray:
        return read_frames(path, num_frames=self.settings["num_frames"], fps=self.settings["fps"])

    def embed(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        flat = self.images.embed_images([frame for frames in inputs for frame in frames])
        return np.split(flat, np.cumsum([len(frames) for frames in inputs])[:-1])
