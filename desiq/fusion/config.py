"""The configuration of a T5-fusion model and its training (saved with the model), and the media encoders
of ``ours``."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from desiq.fusion.architecture import AUDIO_ENCODER, DEFAULTS, TEXT_ENCODER, TEXT_LEN, Architecture, Defaults
from desiq.inputs import InputSetting
from mmsoc.media import AudioEncoder, EncoderSpec, TranscriptEncoder, VideoEncoder

CONFIG_NAME = re.compile(r"A([2-9]|[1-9][0-9]+)")
"""``AK`` (all K options: ``A4`` for Social-IQ, ``A3``, ``A5``, ...) or ``A2`` (correct-incorrect pairs)."""


def default_encoders(
    video_model: str = "ViT-B-32",
    video_pretrained: str | None = "openai",
    num_frames: int = 8,
    audio_model: str = AUDIO_ENCODER,
    text_model: str = "default",
) -> dict[str, EncoderSpec]:
    """Encoder specs per medium of ``ours`` (open_clip frames, wav2vec2 audio, MiniLM transcript cues);
    ``paper_media.paper_encoders`` gives the paper architecture's."""
    return {
        "transcript": TranscriptEncoder(text_model).spec,
        "video": VideoEncoder(video_model, video_pretrained, num_frames=num_frames).spec,
        "audio": AudioEncoder(audio_model).spec,
    }


@dataclass
class FusionConfig:
    """Everything that defines a fusion model and its training; saved with the model."""

    backbone: str
    inputs: str = "q+a+t+v+s"
    config: str = "A4"
    """``AK``: cross-entropy over all K options (``A4`` for Social-IQ); ``A2``: over correct-incorrect pairs."""
    encoders: dict[str, EncoderSpec] = field(default_factory=default_encoders)
    max_tokens: int = 16
    """ours: positions per medium (longer ones are average-pooled)."""
    max_text_len: int = 96
    """ours: tokens of "question: ... answer: ..."."""
    lr: float = 1e-4
    weight_decay: float = 0.01
    epochs: int = 10
    batch_size: int = 8
    patience: int = 3
    seed: int = 42
    architecture: str = Architecture.ours.value
    """``paper`` or ``ours`` (``desiq.fusion.architecture``); configs saved before it existed are ``ours``."""
    text_encoder: str | None = None
    """paper: the frozen text encoder of question, options (and, through its spec, transcript)."""
    text_len: int = TEXT_LEN
    """paper: word pieces of the question and of each option (padded)."""

    def __post_init__(self):
        self.inputs = InputSetting.parse(self.inputs).name
        if not CONFIG_NAME.fullmatch(self.config):
            raise ValueError(f"config must be AK (all K options: A3, A4, ...) or A2, not {self.config!r}")
        self.architecture = Architecture(self.architecture).value
        if self.architecture == Architecture.paper.value:
            self.text_encoder = self.text_encoder or TEXT_ENCODER

    @property
    def defaults(self) -> Defaults:
        """The architecture's fixed training choices (gradient clipping, early-stopping rule)."""
        return DEFAULTS[Architecture(self.architecture)]

    def to_json(self) -> dict:
        return {**asdict(self), "encoders": {m: s.to_json() for m, s in self.encoders.items()}}

    @classmethod
    def from_json(cls, obj: dict) -> FusionConfig:
        return cls(**{**obj, "encoders": {m: EncoderSpec.from_json(s) for m, s in obj["encoders"].items()}})
