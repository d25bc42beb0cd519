"""Batches for training with the loss on answer tokens only.

Each prompt goes through the model's processor (so image placeholders expand to the model's image
tokens); the target is tokenised in context, as an answer is scored after its prompt
(``mmsoc.models.prompting.answer_tokens``), and appended with an end-of-sequence token. Labels are
-100 on every prompt, image and padding position, so only the answer (and explanation) is learnt.
Other per-token inputs (Qwen-VL's ``mm_token_type_ids``) are extended over the target as text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from PIL import Image

from mmsoc.models.base import Request
from mmsoc.models.prompting import answer_tokens
from mmsoc.runners.finetune.data import TrainItem

IGNORE_INDEX = -100


def _load_image(path: str) -> Image.Image:
    return Image.open(path).convert("RGB")


class TrainCollator:
    """Callable turning TrainItems into right-padded model inputs with masked labels."""

    def __init__(
        self,
        processor,
        format_prompt: Callable[[Request], str],
        max_target_tokens: int = 256,
        encode: Callable[[Request], dict[str, torch.Tensor]] | None = None,
    ):
        self.processor = processor
        self.encode = encode
        self.tokenizer = getattr(processor, "tokenizer", processor)
        self.format_prompt = format_prompt
        self.max_target_tokens = max_target_tokens
        if self.tokenizer.eos_token_id is None:
            raise ValueError("the tokenizer has no end-of-sequence token")
        self.pad_id = (
            self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.tokenizer.eos_token_id
        )

    def encode_prompt(self, request: Request) -> dict[str, torch.Tensor]:
        """Processor outputs for one request (batch dimension 1), with every image it carries (or ``encode``'s)."""
        if self.encode is not None:
            return dict(self.encode(request))
        images = [_load_image(path) for path in request.images]
        kwargs = {"images": images} if images else {}
        return dict(self.processor(text=[self.format_prompt(request)], return_tensors="pt", **kwargs))

    def target_ids(self, prompt: str, target: str) -> list[int]:
        """The target's tokens as they follow the prompt (tokenised in context, as answers are scored),
        then end-of-sequence."""
        ids = answer_tokens(self.tokenizer, prompt, target)[: self.max_target_tokens - 1]
        return [*ids, self.tokenizer.eos_token_id]

    def __call__(self, items: Sequence[TrainItem]) -> dict[str, torch.Tensor]:
        rows, labels, per_token = [], [], set()
        extras: dict[str, list[torch.Tensor]] = {}
        for item in items:
            encoded = self.encode_prompt(item.request)
            prompt = encoded.pop("input_ids")[0]
            encoded.pop("attention_mask", None)
            target = torch.tensor(self.target_ids(self.format_prompt(item.request), item.target), dtype=prompt.dtype)
            rows.append(torch.cat([prompt, target]))
            labels.append(torch.cat([torch.full_like(prompt, IGNORE_INDEX), target]))
            for key, value in encoded.items():
                if (
                    torch.is_tensor(value)
                    and value.dim() == 2
                    and value.shape == (1, len(prompt))
                    and not key.startswith("qformer")
                ):  # a per-token input: the target is text
                    value = torch.cat([value, value.new_zeros((1, len(target)))], dim=1)
                    per_token.add(key)
                extras.setdefault(key, []).append(value)
        batch = {
            "input_ids": _pad(rows, self.pad_id),
            "attention_mask": _pad([torch.ones_like(row) for row in rows], 0),
            "labels": _pad(labels, IGNORE_INDEX),
        }
        for key, values in extras.items():
            if key.endswith("input_ids") or key.endswith("attention_mask") or key in per_token:
                pad = self.pad_id if key.endswith("input_ids") else 0
                batch[key] = _pad([value[0] for value in values], pad)
            else:
                batch[key] = torch.cat(values)
        return batch


def _pad(rows: Sequence[torch.Tensor], value: int) -> torch.Tensor:
    return torch.nn.utils.rnn.pad_sequence(list(rows), batch_first=True, padding_value=value)
