"""Nucleus sampling with one random generator per row, so a sample never depends on its batch.

``generate`` draws from the global RNG for the whole batch, which ties each row's tokens to its
batch-mates. Instead, this logits processor applies temperature and top-p (transformers' own
warpers), draws each row's token from that row's ``torch.Generator`` (seeded by its request), and
masks every other token; ``generate`` then runs greedily and picks exactly the drawn token.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from transformers import LogitsProcessor, TemperatureLogitsWarper, TopPLogitsWarper


class PerRowSampler(LogitsProcessor):
    """Sample row i from its own generator seeded with ``seeds[i]``."""

    def __init__(self, seeds: Sequence[int], temperature: float = 1.0, top_p: float = 0.9):
        self.seeds = list(seeds)
        self.warpers: list[LogitsProcessor] = [TemperatureLogitsWarper(temperature)] if temperature != 1.0 else []
        if top_p < 1.0:
            self.warpers.append(TopPLogitsWarper(top_p))
        self._generators: list[torch.Generator] | None = None

    def _rows(self, device: torch.device) -> list[torch.Generator]:
        if self._generators is None:
            self._generators = [torch.Generator(device=device).manual_seed(seed) for seed in self.seeds]
        return self._generators

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        for warper in self.warpers:
            scores = warper(input_ids, scores)
        probs = torch.softmax(scores.float(), dim=-1)
        picks = torch.cat(
            [torch.multinomial(row, 1, generator=gen) for row, gen in zip(probs, self._rows(scores.device))]
        )
        masked = torch.full_like(scores, float("-inf"))
        return masked.scatter_(1, picks[:, None], 0.0)  # type: ignore[return-value]
