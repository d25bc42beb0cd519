"""Frame embeddings for the video encoder: open_clip models (default ViT-B-32) or transformers CLIP vision models."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from PIL import Image

from mmsoc.media.weights import hub_fetch, loading

HF_PREFIX = "hf:"


def _is_hf_folder(model: str) -> bool:
    folder = Path(model)
    return (folder / "config.json").is_file() and not (folder / "open_clip_config.json").is_file()


class FrameEmbedder:
    """Embeds RGB frames with an open_clip model or a transformers CLIP vision model.

    ``model``: an open_clip architecture name (with ``pretrained``: a tag such as "openai" or a
    checkpoint file), an open_clip folder (``open_clip_config.json`` + weights), ``hf:ID_OR_DIR``
    or a transformers folder (CLIP vision with projection). ``settings`` are what changes the
    embeddings (part of the video encoder's cache key); the model loads on first use.
    """

    def __init__(
        self,
        model: str = "ViT-B-32",
        pretrained: str | None = "openai",
        normalize: bool = True,
        batch_size: int = 32,
        device: str = "cpu",
    ):
        hf = model.startswith(HF_PREFIX) or _is_hf_folder(model)
        self.model = model
        self.settings: dict[str, Any] = {
            "pretrained": None if hf or Path(model).is_dir() else pretrained,
            "normalize": normalize,
        }
        self.backend = "transformers" if hf else "open_clip"
        self.batch_size, self.device = batch_size, device

    @functools.cached_property
    def _model(self) -> tuple[Any, Any]:
        """The frame model (an open_clip or transformers CLIP vision model) and its preprocessing."""
        if self.backend == "transformers":
            from transformers import AutoImageProcessor, CLIPVisionModelWithProjection

            name = self.model.removeprefix(HF_PREFIX)
            with loading("frame encoder", name, hub_fetch(name), "use a local transformers CLIP folder"):
                model = CLIPVisionModelWithProjection.from_pretrained(name)
                processor = AutoImageProcessor.from_pretrained(name)
            preprocess = lambda images: processor(images=images, return_tensors="pt")["pixel_values"]
        else:
            import open_clip

            name = f"local-dir:{self.model}" if Path(self.model).is_dir() else self.model
            with loading(
                "frame encoder",
                self.label,
                self.fetch_hint(),
                "use local weights (an open_clip folder or checkpoint file) or none (random weights)",
            ):
                model, _, transform = open_clip.create_model_and_transforms(
                    name, pretrained=self.settings["pretrained"]
                )
            preprocess = lambda images: torch.stack([transform(im) for im in images])
        return model.eval().to(self.device), preprocess

    @property
    def label(self) -> str:
        """The model as the user named it (with its pretrained tag)."""
        tag = self.settings["pretrained"]
        return f"{self.model} (pretrained {tag})" if tag and self.backend == "open_clip" else self.model

    def fetch_hint(self) -> str:
        """How to get this open_clip model's pretrained weights onto the machine."""
        import open_clip

        repo = open_clip.get_pretrained_cfg(self.model, self.settings["pretrained"] or "").get("hf_hub") or ""
        return hub_fetch(repo.strip("/")) if repo else "download its checkpoint file on a machine with network"

    @torch.inference_mode()
    def embed_images(self, images: Sequence[Image.Image | np.ndarray]) -> np.ndarray:
        """(n, dim) float32 embeddings of PIL images or HxWx3 uint8 arrays, in batches."""
        model, preprocess = self._model
        out = []
        for start in range(0, len(images), self.batch_size):
            chunk = images[start : start + self.batch_size]
            batch = [im if isinstance(im, Image.Image) else Image.fromarray(im) for im in chunk]
            pixels = preprocess(batch).to(self.device)
            if self.backend == "transformers":
                features = model(pixel_values=pixels).image_embeds
            else:
                features = model.encode_image(pixels)
            if self.settings["normalize"]:
                features = torch.nn.functional.normalize(features, dim=-1)
            out.append(features.float().cpu().numpy())
        return np.concatenate(out) if out else np.zeros((0, 0), np.float32)
