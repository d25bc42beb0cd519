"""The batch-first model contract: requests in, one response string per request out."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

PAPER_SEEDS: tuple[int, ...] = (0, 1, 2)
"""Seeds of the paper's sampled runs (appendix D)."""


@dataclass(frozen=True)
class GenerationSettings:
    """Decoding settings; the defaults are the paper's (nucleus p=0.9, temperature 1.0, 256 tokens)."""

    greedy: bool = False
    max_new_tokens: int = 256
    top_p: float = 0.9
    temperature: float = 1.0


@dataclass(frozen=True)
class Request:
    """One query: the full prompt text, the images it refers to, and where its randomness comes from.

    ``seed`` is None for greedy decoding. ``task`` lets task-aware baselines pick their labels.
    """

    task: str
    id: str
    prompt: str
    images: tuple[str, ...] = ()
    text: str = ""
    seed: int | None = None

    @property
    def rng_seed(self) -> int:
        """A 63-bit seed owned by this (task, id, seed): randomness never depends on the batch."""
        digest = hashlib.sha256(f"{self.task}\x00{self.id}\x00{self.seed}".encode()).digest()
        return int.from_bytes(digest[:8], "little") >> 1


class Backend(Protocol):
    """Anything that answers a batch of requests with one response string each."""

    name: str

    def generate(self, requests: Sequence[Request], settings: GenerationSettings) -> list[str]:
        """Responses in request order; each depends only on its own request and seed."""
        ...
