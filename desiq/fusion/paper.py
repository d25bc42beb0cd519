"""The paper's T5-fusion model (the official DeSIQ Concat model; ``desiq.fusion.architecture`` lists where
and why we differ from the official code)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import nn

from desiq.fusion.architecture import HEAD_HIDDEN, TEXT_LEN
from desiq.fusion.features import MediaFeatures
from desiq.inputs import MEDIA
from desiq.records import MCQAItem

TEXT_MEDIA = ("transcript",)
"""Media whose features come from the frozen text encoder and share its projection."""


class PaperFusionModel(nn.Module):
    """Scores one option: [q | t | v | s | a_k] through the T5 encoder, segment-end states concatenated,
    sigmoid MLP head. ``forward`` returns the head's logit (its sigmoid is the official model's output).

    ``encoder``: the trained T5 encoder. ``text_encoder``: the frozen BERT-style encoder of question and
    options (never trained, kept in evaluation mode, not part of ``trained_parts``). ``feature_dims``: the
    width of each medium's features (the transcript's is the text encoder's).
    """

    def __init__(
        self,
        encoder: Any,
        text_encoder: Any,
        feature_dims: dict[str, int],
        question: bool = True,
        hidden: int = HEAD_HIDDEN,
    ):
        super().__init__()
        width, text_width = encoder.config.d_model, text_encoder.config.hidden_size
        self.encoder = encoder
        self.text_encoder = text_encoder.eval().requires_grad_(False)
        self.feature_dims, self.question = dict(feature_dims), question
        for m in TEXT_MEDIA:
            if m in feature_dims and feature_dims[m] != text_width:
                raise ValueError(f"{m} features are {feature_dims[m]} wide, the text encoder {text_width}")
        self.text_projector = nn.Linear(text_width, width)
        self.project = nn.ModuleDict({m: nn.Linear(d, width) for m, d in feature_dims.items() if m not in TEXT_MEDIA})
        segments = int(question) + len(feature_dims) + 1
        self.head = nn.Sequential(nn.Linear(segments * width, hidden), nn.Sigmoid(), nn.Linear(hidden, 1))

    def train(self, mode: bool = True) -> PaperFusionModel:
        super().train(mode)
        self.text_encoder.eval()
        return self

    def trained_parts(self) -> dict[str, torch.Tensor]:
        """Everything trained outside the T5 encoder (the frozen text encoder is reloaded by name)."""
        return {k: v for k, v in self.state_dict().items() if not k.startswith(("encoder.", "text_encoder."))}

    def text_features(self, ids: torch.Tensor) -> torch.Tensor:
        """Frozen last hidden states of token ids, called as the official code calls BERT: without a mask."""
        with torch.no_grad():
            return self.text_encoder(input_ids=ids).last_hidden_state

    def forward(
        self,
        answer_ids: torch.Tensor,
        media: dict[str, tuple[torch.Tensor, torch.Tensor]],
        question_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """One logit per sequence (option)."""
        return self.head(self.embed(answer_ids, media, question_ids)).squeeze(-1)

    def embed(
        self,
        answer_ids: torch.Tensor,
        media: dict[str, tuple[torch.Tensor, torch.Tensor]],
        question_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """The encoder states at the end of each segment, concatenated (options x segments * width).

        Within a row every position is attended to, padding tokens included, as in the official model;
        the mask hides only the positions that batching adds after a shorter medium. Real positions are
        packed to the front, so a row's scores do not depend on the rest of the batch.
        """
        ones = torch.ones(answer_ids.shape, dtype=torch.long, device=answer_ids.device)
        parts, masks = [], []
        if self.question:
            assert question_ids is not None, "a model that reads the question is given its tokens"
            parts.append(self.text_projector(self.text_features(question_ids)))
            masks.append(torch.ones(question_ids.shape, dtype=torch.long, device=question_ids.device))
        for modality in MEDIA:
            if modality in media:
                values, mask = media[modality]
                project = self.text_projector if modality in TEXT_MEDIA else self.project[modality]
                parts.append(project(values))
                masks.append(mask)
        parts.append(self.text_projector(self.text_features(answer_ids)))
        masks.append(ones)
        ends = torch.stack([m.sum(1) for m in masks], dim=1).cumsum(1) - 1
        mask = torch.cat(masks, dim=1)
        order = torch.sort((mask == 0).to(torch.int8), dim=1, stable=True).indices
        width = parts[0].shape[-1]
        embeds = torch.gather(torch.cat(parts, dim=1), 1, order.unsqueeze(-1).expand(-1, -1, width))
        hidden = self.encoder(inputs_embeds=embeds, attention_mask=torch.gather(mask, 1, order)).last_hidden_state
        return torch.gather(hidden, 1, ends.unsqueeze(-1).expand(-1, -1, width)).flatten(1)


def collate(
    items: Sequence[MCQAItem],
    features: MediaFeatures,
    dims: dict[str, int],
    tokenizer,
    use_question: bool,
    text_len: int = TEXT_LEN,
) -> dict:
    """Tensors for every option of every item (items x options flattened, item by item).

    Question and options are token ids padded to ``text_len`` (the official ``padding='max_length'``);
    a medium missing for a video is one zero vector (counted by ``MediaFeatures.masked``).
    """

    def ids(texts: list[str]) -> torch.Tensor:
        return tokenizer(texts, max_length=text_len, padding="max_length", truncation=True, return_tensors="pt")[
            "input_ids"
        ]

    repeat = [len(item.options) for item in items]
    index = torch.repeat_interleave(torch.arange(len(items)), torch.tensor(repeat))
    inputs: dict = {"answer_ids": ids([option for item in items for option in item.options]), "media": {}}
    if use_question:
        inputs["question_ids"] = ids([item.question for item in items])[index]
    for modality, width in dims.items():
        found = [features.get(modality, item.video) for item in items]
        arrays = [np.zeros((1, width), np.float32) if a is None else a for a in found]
        length = max(len(a) for a in arrays)
        values = np.zeros((len(items), length, width), np.float32)
        mask = np.zeros((len(items), length), np.int64)
        for k, array in enumerate(arrays):
            values[k, : len(array)], mask[k, : len(array)] = array, 1
        inputs["media"][modality] = (torch.from_numpy(values)[index], torch.from_numpy(mask)[index])
    return {"inputs": inputs, "counts": repeat}
