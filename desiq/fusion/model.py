"""Our T5-fusion option scorer (``--architecture ours``): question/option tokens and projected media features
in one fine-tuned T5 encoder."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import nn

from desiq.fusion.features import MediaFeatures
from desiq.inputs import MEDIA
from desiq.records import MCQAItem


class FusionModel(nn.Module):
    """Scores one option: T5 encoder over [text tokens; transcript; video; audio], masked mean, linear head.

    Each media modality has a LayerNorm + linear projection to the T5 width and a learned modality
    embedding; missing media contribute no positions (attention mask 0).
    """

    def __init__(self, encoder: Any, feature_dims: dict[str, int]):
        super().__init__()
        width = encoder.config.d_model
        self.encoder = encoder
        self.feature_dims = dict(feature_dims)
        self.project = nn.ModuleDict(
            {m: nn.Sequential(nn.LayerNorm(d), nn.Linear(d, width)) for m, d in feature_dims.items()}
        )
        self.modality = nn.Embedding(len(MEDIA), width)
        self.head = nn.Linear(width, 1)

    def trained_parts(self) -> dict[str, torch.Tensor]:
        """Everything outside the T5 encoder (saved beside the backbone)."""
        return {k: v for k, v in self.state_dict().items() if not k.startswith("encoder.")}

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, media: dict[str, tuple[torch.Tensor, torch.Tensor]]
    ) -> torch.Tensor:
        """One score per sequence (option)."""
        return self.head(self.embed(input_ids, attention_mask, media)).squeeze(-1)

    def embed(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, media: dict[str, tuple[torch.Tensor, torch.Tensor]]
    ) -> torch.Tensor:
        """Masked mean of the encoder's output over text and media positions.

        Each row's real positions are packed to the front (text, then each modality), so padding
        never sits between them: T5's relative positions, and so the scores, do not depend on
        which other items share the batch.
        """
        parts = [self.encoder.get_input_embeddings()(input_ids)]
        masks = [attention_mask]
        for modality, (features, mask) in media.items():
            index = torch.full(mask.shape, MEDIA.index(modality), dtype=torch.long, device=mask.device)
            parts.append(self.project[modality](features) + self.modality(index))
            masks.append(mask)
        mask = torch.cat(masks, dim=1)
        order = torch.sort((mask == 0).to(torch.int8), dim=1, stable=True).indices
        embeds = torch.gather(torch.cat(parts, dim=1), 1, order.unsqueeze(-1).expand(-1, -1, parts[0].shape[-1]))
        mask = torch.gather(mask, 1, order)
        hidden = self.encoder(inputs_embeds=embeds, attention_mask=mask).last_hidden_state
        weights = mask.unsqueeze(-1).to(hidden.dtype)
        return (hidden * weights).sum(1) / weights.sum(1).clamp(min=1.0)


def option_text(question: str, option: str, use_question: bool) -> str:
    return f"question: {question} answer: {option}" if use_question else f"answer: {option}"


def collate(
    items: Sequence[MCQAItem],
    features: MediaFeatures,
    dims: dict[str, int],
    tokenizer,
    use_question: bool,
    max_text_len: int,
) -> dict:
    """Tensors for every option of every item (items x options flattened, item by item): ``inputs`` (the
    model's keyword arguments) and ``counts`` (options per item)."""
    texts = [option_text(item.question, option, use_question) for item in items for option in item.options]
    tokens = tokenizer(texts, padding=True, truncation=True, max_length=max_text_len, return_tensors="pt")
    repeat = [len(item.options) for item in items]
    inputs = {"input_ids": tokens["input_ids"], "attention_mask": tokens["attention_mask"], "media": {}}
    index = torch.repeat_interleave(torch.arange(len(items)), torch.tensor(repeat))
    for modality, width in dims.items():
        arrays = [features.get(modality, item.video) for item in items]
        length = max([len(a) for a in arrays if a is not None], default=1)
        values = np.zeros((len(items), length, width), np.float32)
        mask = np.zeros((len(items), length), np.int64)
        for k, array in enumerate(arrays):
            if array is not None:
                values[k, : len(array)], mask[k, : len(array)] = array, 1
        inputs["media"][modality] = (torch.from_numpy(values)[index], torch.from_numpy(mask)[index])
    return {"inputs": inputs, "counts": repeat}
