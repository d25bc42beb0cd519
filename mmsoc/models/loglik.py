"""Log-likelihood of continuations given already encoded prompts (the multiple-choice scoring path)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch


def continuation_logliks(
    model: Any, batch: Any, targets: Sequence[Sequence[int]], pad_id: int | None, encoder_decoder: bool = False
) -> list[float]:
    """Sum over each target's tokens of log p(token | prompt, earlier target tokens), one per row.

    ``batch`` holds right-padded prompts (``input_ids``, ``attention_mask`` and whatever else the
    processor made, e.g. ``pixel_values``). Decoder-only models get each target appended right
    after its row's last prompt token; encoder-decoder models read the prompt and score the target
    as the decoder's labels.
    """
    pad = 0 if pad_id is None else int(pad_id)
    inputs = dict(batch)
    with torch.inference_mode():
        if encoder_decoder:
            labels = _pad([list(t) for t in targets], -100, inputs["input_ids"].device)
            logits = model(**inputs, labels=labels).logits.float()
            offsets = torch.zeros(len(targets), dtype=torch.long)
        else:
            ids, mask = inputs.pop("input_ids"), inputs.pop("attention_mask")
            lengths = mask.sum(1).tolist()
            rows = [ids[i, :n].tolist() + list(t) for i, (n, t) in enumerate(zip(lengths, targets))]
            width = max(len(r) for r in rows)
            extended = {
                key: _extend(value, lengths, targets, width)
                for key, value in inputs.items()
                if torch.is_tensor(value) and value.shape[:2] == ids.shape
            }
            inputs.update(extended)
            inputs["input_ids"] = _pad(rows, pad, ids.device, width)
            inputs["attention_mask"] = _pad([[1] * len(r) for r in rows], 0, ids.device, width)
            logits = model(**inputs).logits.float()
            offsets = torch.tensor(lengths, dtype=torch.long) - 1
        logprobs = torch.log_softmax(logits, dim=-1)
        out = []
        for i, target in enumerate(targets):
            if not target:
                out.append(0.0)
                continue
            index = torch.arange(len(target), device=logprobs.device) + int(offsets[i])
            token_ids = torch.tensor(list(target), device=logprobs.device)
            out.append(float(logprobs[i, index, token_ids].double().sum()))
    return out


def _pad(rows: Sequence[Sequence[int]], value: int, device: Any, width: int | None = None) -> torch.Tensor:
    width = width or max((len(r) for r in rows), default=0)
    out = torch.full((len(rows), width), value, dtype=torch.long)
    for i, row in enumerate(rows):
        out[i, : len(row)] = torch.tensor(list(row), dtype=torch.long)
    return out.to(device)


def _extend(value: torch.Tensor, lengths: Sequence[int], targets: Sequence[Sequence[int]], width: int) -> torch.Tensor:
    """A per-token tensor (e.g. token types) with each target's positions filled with zeros."""
    out = torch.zeros((value.shape[0], width, *value.shape[2:]), dtype=value.dtype, device=value.device)
    for i, n in enumerate(lengths):
        out[i, :n] = value[i, :n]
    return out
