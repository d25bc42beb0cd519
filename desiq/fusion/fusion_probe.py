"""The fusion model as a bias-probe backend (``desiq probe --probe fusion --inputs a+t``; ``--probe t5``
is the same model without media)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from desiq.data import hold_out_videos
from desiq.fusion.architecture import AUDIO_ENCODER, DEFAULTS, TEXT_ENCODER, Architecture
from desiq.fusion.config import FusionConfig, default_encoders
from desiq.fusion.features import MediaFeatures
from desiq.fusion.paper_media import paper_encoders
from desiq.fusion.runner import FusionScorer, train_fusion
from desiq.inputs import InputSetting
from desiq.records import MCQAItem, configs
from mmsoc.media import EncoderSpec, FeatureCache


class FusionProbe:
    """Trains a fresh T5-fusion model on each ``fit``; a seeded share of the training videos is its dev set.

    ``backbone`` is a T5 checkpoint id (``t5-small``, downloaded on first use) or a local folder with
    the checkpoint and its tokenizer (``config.json``, weights, tokenizer files: what
    ``save_pretrained`` or ``hf download google-t5/t5-small --local-dir DIR`` writes), for machines
    without hub access. The defaults (AdamW at lr 1e-4, early stopping on the dev videos) are the
    paper's settings for a pretrained T5-small; a randomly initialised backbone needs a larger lr.
    With ``media=False``, or without ``media_root``, it takes the text settings only (``a``, ``q+a``). Items
    may have any one number K of options: it trains in their first configuration (``AK``, ``A4`` for Social-IQ;
    ``A2`` for two options). ``architecture``: ``ours`` or
    ``paper`` (``desiq.fusion.architecture``; ``text_encoder`` is the paper's frozen text encoder), with
    the architecture's default media encoders unless ``encoders`` are given.
    """

    def __init__(
        self,
        backbone: str,
        media_root: Path | str | None = None,
        epochs: int = 10,
        lr: float = 1e-4,
        batch_size: int = 8,
        patience: int = 3,
        dev_fraction: float = 0.2,
        encoders: dict[str, EncoderSpec] | None = None,
        cache_dir: Path | str | None = None,
        progress: bool = False,
        name: str = "fusion",
        media: bool = True,
        architecture: str = "ours",
        text_encoder: str | None = None,
        audio_encoder: str = AUDIO_ENCODER,
    ):
        self.architecture = Architecture(architecture)
        self.text_encoder, self.audio_encoder = text_encoder, audio_encoder
        self.backbone, self.media_root = backbone, Path(media_root) if media_root else None
        self.epochs, self.lr, self.batch_size, self.patience = epochs, lr, batch_size, patience
        self.dev_fraction, self.encoders, self.progress = dev_fraction, encoders, progress
        self.name, self.media = name, media
        self.cache = FeatureCache(cache_dir)
        self.scorer: FusionScorer | None = None
        self._features: MediaFeatures | None = None
        self._videos: set[str] = set()

    def fit(self, items: Sequence[MCQAItem], inputs: str, seed: int) -> None:
        setting = InputSetting.parse(inputs)
        if not self.media:
            setting.text_only(f"probe {self.name!r}")
        elif setting.media and self.media_root is None:
            raise ValueError(
                f"inputs {setting.name} need media ({', '.join(setting.media)}), but these questions come without "
                "a media folder: use inputs a or q+a, or pass --data with a Social-IQ folder "
                "(or --media-root with --train/--eval)"
            )
        train, dev = hold_out_videos(items, self.dev_fraction, seed)
        config = FusionConfig(
            self.backbone,
            inputs,
            configs(items)[0],
            self._encoders() if setting.media else {},
            lr=self.lr,
            epochs=self.epochs,
            batch_size=self.batch_size,
            patience=self.patience,
            seed=seed,
            architecture=self.architecture.value,
            text_encoder=self.text_encoder,
        )
        self.scorer, _, self._features = train_fusion(
            train, dev, self.media_root, config, self.cache, progress=self.progress
        )
        self._videos = {item.video for item in items}

    def _encoders(self) -> dict[str, EncoderSpec]:
        if self.encoders:
            return self.encoders
        if self.architecture is Architecture.paper:
            defaults = DEFAULTS[Architecture.paper]
            return paper_encoders(
                self.text_encoder or TEXT_ENCODER, defaults.video_encoder, defaults.num_frames, self.audio_encoder
            )
        return default_encoders(audio_model=self.audio_encoder)

    def _media(self, items: Sequence[MCQAItem]) -> MediaFeatures:
        """Features per video, reused while the items' videos are known (perturbations never change media)."""
        videos = {item.video for item in items}
        if self._features is None or not videos <= self._videos:
            self._features = self._trained.features(items, self.media_root, self.cache)
            self._videos = videos
        return self._features

    @property
    def _trained(self) -> FusionScorer:
        if self.scorer is None:
            raise RuntimeError("call fit before score")
        return self.scorer

    def score(self, items: Sequence[MCQAItem]) -> list[np.ndarray]:
        return self._trained.score(items, self._media(items))

    def option_features(self, items: Sequence[MCQAItem]) -> np.ndarray:
        """The model's pooled representation of every option (items x options flattened)."""
        return self._trained.embed(items, self._media(items), self.batch_size)
