"""Bias probes: models that score each option of an MCQA item from a restricted input setting.

A probe module declares ``PROBE = ProbeEntry(name, summary, build)``; ``build`` turns the command's
``ProbeOptions`` into a backend (importing heavy packages only then). To add a probe, add one module
to this package (or declare ``PROBE`` in a plugin module). ``heuristics`` is the one entry without a
backend: rules that need no training.

Every backend implements ``fit(items, inputs, seed)`` (always from scratch), ``score(items)`` (one
score per option) and ``option_features(items)`` (a vector per option, for the t-SNE figure).
``inputs`` names what it may see (``desiq.inputs``): ``a`` (the options only) or ``q+a`` for text
probes, media settings (``a+t``, ...) for the fusion probe.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from desiq.fusion.architecture import AUDIO_ENCODER
from mmsoc.core.registry import Registry

if TYPE_CHECKING:
    import numpy as np

    from desiq.records import MCQAItem


class ProbeBackend(Protocol):
    name: str

    def fit(self, items: Sequence[MCQAItem], inputs: str, seed: int) -> None: ...

    def score(self, items: Sequence[MCQAItem]) -> list[np.ndarray]: ...

    def option_features(self, items: Sequence[MCQAItem]) -> np.ndarray: ...


@dataclass(frozen=True)
class ProbeOptions:
    """What the command line can say about a probe; each probe takes what applies to it."""

    backbone: str = "t5-small"
    """T5 id or local folder (t5, fusion)."""
    encoder: str = "default"
    """Sentence encoder id or folder (embed-linear)."""
    epochs: int = 3
    lr: float = 1e-4
    media_root: Path | None = None
    """Social-IQ folder the media come from (fusion)."""
    architecture: str = "ours"
    """T5-fusion architecture (t5, fusion): ``ours`` or ``paper`` (``desiq.fusion.architecture``)."""
    text_encoder: str | None = None
    """Frozen text encoder of the paper architecture (its default when None)."""
    audio_encoder: str = AUDIO_ENCODER
    """Audio encoder of the fusion probe: a wav2vec2-style id or folder, or ``logmel``."""
    progress: bool = True


@dataclass(frozen=True)
class ProbeEntry:
    name: str
    summary: str
    """One line for ``desiq probe --help``."""
    build: Callable[[ProbeOptions], ProbeBackend] | None
    """None for a probe that needs no training (``trains`` False)."""
    media: bool = False
    """Whether it can see media (then media inputs need a media folder)."""
    trains: bool = True
    """False for rules scored without a training file (``heuristics``): not a ``ProbeBackend``."""


PROBES: Registry[ProbeEntry] = Registry("probe")
PROBES.discover(
    "desiq.probes", lambda module: [(p.name, p) for p in [getattr(module, "PROBE", None)] if isinstance(p, ProbeEntry)]
)


def make_probe(name: str, **options: Any) -> ProbeBackend:
    """Build a probe backend by name; keyword arguments are ``ProbeOptions`` fields."""
    entry = PROBES[name]
    if entry.build is None:
        raise ValueError(f"probe {name!r} needs no training and has no backend (desiq.probes.{name})")
    return entry.build(ProbeOptions(**options))
