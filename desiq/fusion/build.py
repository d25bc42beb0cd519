"""Building, reloading and batching the model of either architecture, and checking up front that every
pretrained part can be loaded (a clear error naming the model and the flag that replaces it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from desiq.fusion import model as ours
from desiq.fusion import paper
from desiq.fusion.architecture import Architecture
from desiq.fusion.config import FusionConfig
from desiq.fusion.features import MediaFeatures
from desiq.fusion.paper_media import ENCODER_KEY
from desiq.inputs import InputSetting
from desiq.records import MCQAItem
from mmsoc.core.io import UsageError

if TYPE_CHECKING:
    from torch import nn

Loaded = TypeVar("Loaded")
"""What a ``pretrained`` loader returns (a model, a tokenizer, ...)."""

ROLES = {
    "backbone": ("T5 backbone", "pass --backbone FOLDER (a T5 checkpoint and tokenizer)"),
    "text": ("text encoder", "pass --text-encoder FOLDER (a BERT-style encoder and tokenizer)"),
    "video": ("frame encoder", "pass --video-encoder FOLDER"),
    "audio": ("speech encoder", "pass --audio-encoder FOLDER, or --audio-encoder logmel (no pretrained model)"),
    "transcript": ("sentence encoder", "pass --text-encoder FOLDER (sentence-transformers)"),
}
"""Part of the model -> (its name in messages, the flag that replaces it)."""


FusionNet = ours.FusionModel | paper.PaperFusionModel
"""The model of either architecture."""


def _is_paper(config: FusionConfig) -> bool:
    return config.architecture == Architecture.paper.value


def _text_model(config: FusionConfig) -> str:
    """The paper architecture's frozen text encoder (a paper configuration always names one)."""
    assert config.text_encoder is not None
    return config.text_encoder


def pretrained(part: str, name: str, load: Callable[[str], Loaded]) -> Loaded:
    """``load(name)``, or a UsageError naming the model and the flag that replaces it: weights that cannot be
    fetched offline as every command says it (``mmsoc.media.weights``), any other failure with its reason."""
    from mmsoc.media.weights import hub_fetch, loading

    role, instead = ROLES[part]
    try:
        with loading(role, name, hub_fetch(name), instead):
            return load(name)
    except (OSError, ValueError) as err:
        reason = (str(err).strip().splitlines() or [type(err).__name__])[0][:200]
        raise UsageError(f"cannot load the {role} {name!r} ({reason}); {instead}") from None


def _hf_media(config: FusionConfig) -> list[tuple[str, str]]:
    """(medium, model) of the media encoders that load from the Hugging Face hub or a local HF folder."""
    out = []
    for modality in InputSetting.parse(config.inputs).media:
        spec = config.encoders[modality]
        if ENCODER_KEY in spec.settings or (modality == "audio" and spec.model != "logmel"):
            out.append((modality, spec.model))
    return out


def require_models(config: FusionConfig) -> None:
    """Load the configuration of every pretrained part now (cheap), so that a model missing offline stops
    the run before any work, with the flag that avoids it."""
    from transformers import AutoConfig

    parts = [("backbone", config.backbone)] + ([("text", _text_model(config))] if _is_paper(config) else [])
    for part, name in parts + _hf_media(config):
        pretrained(part, name, AutoConfig.from_pretrained)


def _text_encoder(config: FusionConfig) -> tuple[nn.Module, Any]:
    from transformers import AutoModel, AutoTokenizer

    return (
        pretrained("text", _text_model(config), AutoModel.from_pretrained),
        pretrained("text", _text_model(config), AutoTokenizer.from_pretrained),
    )


def build_model(config: FusionConfig, dims: dict[str, int]) -> tuple[FusionNet, Any]:
    """A fresh model (pretrained backbone and frozen parts, new head) and its tokenizer."""
    from transformers import AutoTokenizer, T5EncoderModel

    encoder = pretrained("backbone", config.backbone, T5EncoderModel.from_pretrained)
    if _is_paper(config):
        text, tokenizer = _text_encoder(config)
        return paper.PaperFusionModel(encoder, text, dims, InputSetting.parse(config.inputs).question), tokenizer
    return ours.FusionModel(encoder, dims), pretrained("backbone", config.backbone, AutoTokenizer.from_pretrained)


def load_model(config: FusionConfig, dims: dict[str, int], backbone: Path, head: Path) -> tuple[FusionNet, Any]:
    """A saved model: the fine-tuned backbone and tokenizer from ``backbone``, the trained parts from
    ``head``, the frozen text encoder (paper) by its name in the config."""
    from safetensors.torch import load_file
    from transformers import AutoTokenizer, T5EncoderModel

    encoder = T5EncoderModel.from_pretrained(backbone)
    tokenizer = AutoTokenizer.from_pretrained(backbone)
    model: FusionNet
    if _is_paper(config):
        text, _ = _text_encoder(config)
        model = paper.PaperFusionModel(encoder, text, dims, InputSetting.parse(config.inputs).question)
    else:
        model = ours.FusionModel(encoder, dims)
    missing, unexpected = model.load_state_dict(load_file(head), strict=False)
    if unexpected or any(not k.startswith(("encoder.", "text_encoder.")) for k in missing):
        raise ValueError(f"{head}: does not match the model (missing {missing}, unexpected {unexpected})")
    return model, tokenizer


def collate(
    config: FusionConfig, items: Sequence[MCQAItem], features: MediaFeatures, dims: dict[str, int], tokenizer
) -> dict:
    """The architecture's batch: ``inputs`` (keyword arguments of the model) and ``counts``."""
    question = InputSetting.parse(config.inputs).question
    if _is_paper(config):
        return paper.collate(items, features, dims, tokenizer, question, config.text_len)
    return ours.collate(items, features, dims, tokenizer, question, config.max_text_len)
