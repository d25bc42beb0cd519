"""The batch-first model contract: requests of interleaved content parts in; text or option scores out.

A :class:`Request` carries the content a model sees, in order: text, images, videos (a file or a
folder of frames) and audio. Each model turns parts into its own input format (its family's prompt
template, image tokens, video frames) and declares in :attr:`Model.modalities` what it can read.
Two entry points:

- ``generate(requests, settings)``: one response string per request;
- ``score_options(requests, options)``: the log-likelihood of each candidate answer given the
  request (for multiple choice, as lm-evaluation-harness scores it).

A backend may also split generation (:class:`Prepares`): ``prepare(requests)`` does the CPU work of
a batch (decoding media, running the processor) and ``generate(requests, settings, prepared=...)``
takes its result; the evaluation loop then prepares the next batch while the current one generates.

Results never depend on the batch: sampling is seeded per request (:attr:`Request.rng_seed`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

PAPER_SEEDS: tuple[int, ...] = (0, 1, 2)
"""Seeds of the MM-Soc paper's sampled runs (appendix D)."""


@dataclass(frozen=True)
class GenerationSettings:
    """Decoding settings; the defaults are the MM-Soc paper's (nucleus p=0.9, temperature 1.0, 256 tokens)."""

    greedy: bool = False
    max_new_tokens: int = 256
    top_p: float = 0.9
    temperature: float = 1.0

    def to_json(self) -> dict[str, object]:
        """The settings as a run records them."""
        sampled = not self.greedy
        return {
            "do_sample": sampled,
            "temperature": self.temperature if sampled else None,
            "top_p": self.top_p if sampled else None,
            "max_new_tokens": self.max_new_tokens,
        }


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Image:
    path: str


@dataclass(frozen=True)
class Video:
    """A video file or a folder of frame images; the model samples frames as it was configured to.

    ``frames``: keep only this many of the sampled frames, evenly spaced (a context budget's choice)."""

    path: str
    frames: int | None = None


@dataclass(frozen=True)
class Audio:
    path: str


Part = Text | Image | Video | Audio
MODALITIES = {Text: "text", Image: "image", Video: "video", Audio: "audio"}


@dataclass(frozen=True)
class Request:
    """One query: its content parts in order, the task and item it belongs to, and its seed.

    ``seed`` is None for greedy decoding. ``text`` is the item's own text (a post, a transcript)
    for models that read nothing else (the text-only baselines).
    """

    task: str
    id: str
    parts: tuple[Part, ...]
    seed: int | None = None
    text: str = ""

    @property
    def prompt(self) -> str:
        """The text parts joined by newlines (what a text-only reader of this request sees)."""
        return "\n".join(part.text for part in self.parts if isinstance(part, Text))

    @property
    def images(self) -> tuple[str, ...]:
        return tuple(part.path for part in self.parts if isinstance(part, Image))

    def media(self, part_type: type[Image] | type[Video] | type[Audio]) -> tuple[str, ...]:
        return tuple(part.path for part in self.parts if isinstance(part, part_type))

    @property
    def modalities(self) -> frozenset[str]:
        return frozenset(MODALITIES[type(part)] for part in self.parts)

    @property
    def rng_seed(self) -> int:
        """A 63-bit seed owned by this (task, id, seed): randomness never depends on the batch."""
        digest = hashlib.sha256(f"{self.task}\x00{self.id}\x00{self.seed}".encode()).digest()
        return int.from_bytes(digest[:8], "little") >> 1


@dataclass(frozen=True)
class OptionScores:
    """Log-likelihood of each candidate continuation, and its length in characters (for ``acc_norm``)."""

    loglik: tuple[float, ...]
    chars: tuple[int, ...]


@runtime_checkable
class Model(Protocol):
    """Anything that answers a batch of requests; ``modalities`` says which parts it reads."""

    name: str
    modalities: frozenset[str]

    def generate(self, requests: Sequence[Request], settings: GenerationSettings) -> list[str]:
        """Responses in request order; each depends only on its own request and seed."""
        ...

    def score_options(self, requests: Sequence[Request], options: Sequence[Sequence[str]]) -> list[OptionScores]:
        """For each request, the log-likelihood of each of its options as the continuation."""
        ...


@runtime_checkable
class Prepares(Protocol):
    """A model whose generation splits into a CPU-side ``prepare`` and the generation proper.

    ``prepare`` may run on another thread while ``generate`` runs on a different batch; it raises
    what ``generate`` would raise for bad input (``OSError``, ``ValueError``).
    """

    def prepare(self, requests: Sequence[Request]) -> Any:
        """The inputs of ``generate`` for these requests (media decoded, processor run)."""
        ...

    def generate(self, requests: Sequence[Request], settings: GenerationSettings, prepared: Any = None) -> list[str]:
        """As :meth:`Model.generate`; ``prepared`` is ``prepare(requests)`` when given."""
        ...


class CannotScore(ValueError):
    """The model has no way to score options (it only writes text, or its server returns no logprobs)."""
