"""Image encoders: open_clip models (default ViT-B-32) or transformers CLIP vision models."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from PIL import Image

from mmsoc.media.base import Encoder, MediaError
from mmsoc.media.decode import require_file

HF_PREFIX = "hf:"


def _is_hf_folder(model: str) -> bool:
    folder = Path(model)
    return (folder / "config.json").is_file() and not (folder / "open_clip_config.json").is_file()


class ImageEncoder(Encoder):
    """Embeds images with an open_clip model or a transformers CLIP vision model.

    ``model``: an open_clip architecture name (with ``pretrained``: a tag such as "openai" or a
    checkpoint file), an open_clip folder (``open_clip_config.json`` + weights), ``hf:ID_OR_DIR``
    or a transformers folder (CLIP vision with projection).
    """

    modality = "image"

    def __init__(self, model: str = "ViT-B-32", pretrained: str | None = "openai", normalize: bool = True,
                 batch_size: int = 32, device: str = "cpu"):
        hf = model.startswith(HF_PREFIX) or _is_hf_folder(model)
        super().__init__(model, pretrained=None if hf or Path(model).is_dir() else pretrained, normalize=normalize)
        self.backend = "transformers" if hf else "open_clip"
        self.batch_size, self.device = batch_size, device

    @functools.cached_property
    def _model(self) -> tuple[torch.nn.Module, Any]:
        if self.backend == "transformers":
            from transformers import AutoImageProcessor, CLIPVisionModelWithProjection

            name = self.model.removeprefix(HF_PREFIX)
            model = CLIPVisionModelWithProjection.from_pretrained(name)
            processor = AutoImageProcessor.from_pretrained(name)
            preprocess = lambda images: processor(images=images, return_tensors="pt")["pixel_values"]  # noqa: E731
        else:
            import open_clip

            name = f"local-dir:{self.model}" if Path(self.model).is_dir() else self.model
            model, _, transform = open_clip.create_model_and_transforms(name, pretrained=self.settings["pretrained"])
            preprocess = lambda images: torch.stack([transform(im) for im in images])  # noqa: E731
        return model.eval().to(self.device), preprocess

    def load(self, path: Path) -> Image.Image:
        require_file(path)
        try:
            with Image.open(path) as image:
                return image.convert("RGB")
        except (OSError, ValueError) as err:
            raise MediaError(path, f"cannot read image ({err})") from None

    @torch.inference_mode()
    def embed_images(self, images: Sequence[Image.Image | np.ndarray]) -> np.ndarray:
        """(n, dim) float32 embeddings of PIL images or HxWx3 uint8 arrays, in batches."""
        model, preprocess = self._model
        out = []
        for start in range(0, len(images), self.batch_size):
            batch = [im if isinstance(im, Image.Image) else Image.fromarray(im) for im in images[start:start + self.batch_size]]
            pixels = preprocess(batch).to(self.device)
            if self.backend == "transformers":
                features = model(pixel_values=pixels).image_embeds
            else:
                features = model.encode_image(pixels)
            if self.settings["normalize"]:
                features = torch.nn.functional.normalize(features, dim=-1)
            out.append(features.float().cpu().numpy())
        return np.concatenate(out) if out else np.zeros((0, 0), np.float32)

    def embed(self, inputs: list[Image.Image]) -> list[np.ndarray]:
        return list(self.embed_images(inputs))

    def encode(self, paths: Sequence[str | Path]) -> np.ndarray:
        """(n, dim) embeddings of image files; raises MediaError for an unreadable file."""
        results = self.encode_files(paths)
        for result in results:
            if isinstance(result, MediaError):
                raise result
        return np.stack(results) if results else np.zeros((0, 0), np.float32)
