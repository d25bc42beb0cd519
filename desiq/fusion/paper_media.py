"""The paper architecture's frozen media features, computed as the official DeSIQ code computes them.

- transcript: the caption lines of the WebVTT file (each line once, in order) joined by spaces, 500
  BERT word pieces (padded, no mask), last hidden states averaged over windows of 10 -> 50 vectors;
- video: one frame per second (every third image of a 3-fps frame folder, sorted by name), the first
  60, each through ViT with its last hidden states averaged over all tokens -> one vector per frame;
- audio: a wav2vec2-style encoder's last hidden states at 16 kHz (``mmsoc.media.AudioEncoder``),
  averaged over windows of 50 -> about one vector per second.

The encoders are ``mmsoc.media`` encoders, so features are cached by content like every other medium.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np
import torch

from desiq.fusion.architecture import AUDIO_WINDOW, FRAMES_PER_SECOND, IMAGE_NUM, TRANSCRIPT_TOKENS, TRANSCRIPT_WINDOW
from mmsoc.media import AudioEncoder, Encoder, EncoderSpec, build_encoder, read_subtitles
from mmsoc.media.decode import read_frames

ENCODER_KEY = "encoder"
"""The settings key that names a desiq encoder class in an ``EncoderSpec``."""


def window_mean(array: np.ndarray, window: int) -> np.ndarray:
    """Means of consecutive, non-overlapping windows; a shorter remainder is dropped (``nn.AvgPool1d``)."""
    array = np.atleast_2d(np.asarray(array, dtype=np.float32))
    n = len(array) // window
    return array[: n * window].reshape(n, window, array.shape[-1]).mean(axis=1)


class FrozenEncoder(Encoder):
    """A frozen hub model and its input processor (the ``transformers`` class named ``processor``), run on
    ``device`` ``batch_size`` inputs at a time; ``name`` is its key in :data:`ENCODERS`."""

    name: str
    processor: str
    defaults: tuple[tuple[str, int | float], ...]
    """The settings an encoder of this class is keyed by (in this order), with the paper's values."""
    default_batch_size: int

    def __init__(self, model: str, batch_size: int | None = None, device: str = "cpu", **settings: int | float):
        unknown = set(settings) - {key for key, _ in self.defaults}
        if unknown:
            raise TypeError(f"{type(self).__name__} takes no setting {', '.join(sorted(unknown))}")
        super().__init__(model, **{ENCODER_KEY: self.name}, **{**dict(self.defaults), **settings})
        self.batch_size, self.device = batch_size or self.default_batch_size, device

    @functools.cached_property
    def _model(self) -> tuple[Any, Any]:
        import transformers

        model = transformers.AutoModel.from_pretrained(self.model).eval().to(self.device)
        return model, getattr(transformers, self.processor).from_pretrained(self.model)


class TokenTranscriptEncoder(FrozenEncoder):
    """(tokens / window, dim) frozen text-encoder states of a whole transcript."""

    modality, name, processor = "transcript", "text-tokens", "AutoTokenizer"
    defaults = (("max_length", TRANSCRIPT_TOKENS), ("window", TRANSCRIPT_WINDOW))
    default_batch_size = 8

    def load(self, path: Path) -> str:
        lines = list(dict.fromkeys(cue.text for cue in read_subtitles(path)))
        return " ".join(lines)

    @torch.inference_mode()
    def embed(self, inputs: list[str]) -> list[np.ndarray]:
        model, tokenizer = self._model
        out = []
        for start in range(0, len(inputs), self.batch_size):
            ids = tokenizer(
                inputs[start : start + self.batch_size],
                max_length=self.settings["max_length"],
                padding="max_length",
                truncation=True,
                return_tensors="pt",
            )["input_ids"]
            hidden = model(input_ids=ids.to(self.device)).last_hidden_state.float().cpu().numpy()
            out += [window_mean(h, self.settings["window"]) for h in hidden]
        return out


class ViTFrameEncoder(FrozenEncoder):
    """(frames, dim): the first ``max_frames`` frames at ``fps``, each the mean of a ViT's last hidden states."""

    modality, name, processor = "video", "vit-tokens", "AutoImageProcessor"
    defaults = (("fps", FRAMES_PER_SECOND), ("max_frames", IMAGE_NUM))
    default_batch_size = 16

    def load(self, path: Path) -> np.ndarray:
        return read_frames(path, num_frames=None, fps=self.settings["fps"])[: self.settings["max_frames"]]

    @torch.inference_mode()
    def embed(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        model, processor = self._model
        frames = [frame for video in inputs for frame in video]
        rows = []
        for start in range(0, len(frames), self.batch_size):
            pixels = processor(images=frames[start : start + self.batch_size], return_tensors="pt")["pixel_values"]
            rows.append(model(pixel_values=pixels.to(self.device)).last_hidden_state.mean(dim=1).float().cpu().numpy())
        flat = np.concatenate(rows) if rows else np.zeros((0, 0), np.float32)
        return np.split(flat, np.cumsum([len(video) for video in inputs])[:-1])


ENCODERS = {"text-tokens": TokenTranscriptEncoder, "vit-tokens": ViTFrameEncoder}


def build(spec: EncoderSpec) -> Encoder:
    """A desiq encoder when the spec names one (``settings['encoder']``), else an ``mmsoc.media`` encoder."""
    settings = dict(spec.settings)
    name = settings.pop(ENCODER_KEY, None)
    if name is None:
        return build_encoder(spec)
    return ENCODERS[name](spec.model, **settings)


def paper_encoders(
    text_model: str, video_model: str, max_frames: int = IMAGE_NUM, audio_model: str = "facebook/wav2vec2-base-960h"
) -> dict[str, EncoderSpec]:
    """Encoder specs of the paper architecture, per medium."""
    return {
        "transcript": TokenTranscriptEncoder(text_model).spec,
        "video": ViTFrameEncoder(video_model, max_frames=max_frames).spec,
        "audio": AudioEncoder(audio_model).spec,
    }


def paper_pool(modality: str, array: np.ndarray) -> np.ndarray:
    """The official pooling after the frozen encoder: audio over windows of 50 frames; the others as they are."""
    return window_mean(array, AUDIO_WINDOW) if modality == "audio" else np.asarray(array, dtype=np.float32)
