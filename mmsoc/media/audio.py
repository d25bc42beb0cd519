"""Audio encoders: log-mel features (torchaudio) or a transformers speech encoder (wav2vec2-style)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np
import torch

from mmsoc.media.base import Encoder
from mmsoc.media.decode import read_audio
from mmsoc.media.weights import hub_fetch, loading

LOGMEL = "logmel"


class AudioEncoder(Encoder):
    """(time x dim) features of a waveform read from wav/mp3/mp4 and resampled to ``sample_rate``.

    ``model`` is "logmel" (``n_mels`` log-mel bands every ``hop_ms``) or a transformers speech
    encoder id or folder (its last hidden states).
    """

    modality = "audio"

    def __init__(
        self,
        model: str = LOGMEL,
        sample_rate: int = 16000,
        n_mels: int = 64,
        hop_ms: float = 20.0,
        max_seconds: float | None = 60.0,
        device: str = "cpu",
    ):
        mel = {"n_mels": n_mels, "hop_ms": hop_ms} if model == LOGMEL else {}
        super().__init__(model, sample_rate=sample_rate, max_seconds=max_seconds, **mel)
        self.device = device

    @functools.cached_property
    def _model(self) -> tuple[Any, Any]:
        if self.model == LOGMEL:
            import torchaudio

            hop = int(self.settings["sample_rate"] * self.settings["hop_ms"] / 1000)
            mel = torchaudio.transforms.MelSpectrogram(
                self.settings["sample_rate"], n_fft=4 * hop, hop_length=hop, n_mels=self.settings["n_mels"]
            )
            return mel, None
        from transformers import AutoFeatureExtractor, AutoModel

        instead = f"use a local folder or '{LOGMEL}' (no weights)"
        with loading("speech encoder", self.model, hub_fetch(self.model), instead):
            model = AutoModel.from_pretrained(self.model).eval().to(self.device)
            extractor = AutoFeatureExtractor.from_pretrained(self.model)
        return model, extractor

    def load(self, path: Path) -> np.ndarray:
        return read_audio(path, self.settings["sample_rate"], self.settings["max_seconds"])

    @torch.inference_mode()
    def embed(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        model, extractor = self._model
        if extractor is None:
            return [torch.log(model(torch.from_numpy(wave)) + 1e-6).T.numpy() for wave in inputs]
        out = []
        for wave in inputs:  # one at a time: padded batches would change features of wav2vec2-style models
            batch = extractor(wave, sampling_rate=self.settings["sample_rate"], return_tensors="pt")
            hidden = model(batch["input_values"].to(self.device)).last_hidden_state
            out.append(hidden[0].float().cpu().numpy())
        return out
