"""Model backends by name, found by discovery: each module of ``mmsoc.models.backends`` (and each plugin
module) declares ``MODEL`` (a :class:`ModelEntry`). A ``--model`` value is ``NAME`` or ``NAME:ARG`` for a
registered backend (``random``, ``text-baseline:ID``); a value without ``:`` (or an existing path) is
a transformers model id or folder for the ``hf`` backend, unless it is a near miss of a backend's name
(``rando``); any other ``PREFIX:`` is an error naming the backends. Backend modules import nothing heavy
at import time."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmsoc.core.io import UsageError
from mmsoc.core.plugins import BUILT_IN
from mmsoc.core.registry import Registry, unknown_message
from mmsoc.core.startup import loading
from mmsoc.models.backends.api_limits import MAX_RESPONSE_BYTES
from mmsoc.models.base import Model

DEFAULT_BACKEND = "hf"
NEAR_MISS = 0.8
"""How close (difflib ratio) a bare value must be to a backend's name to be taken for its misspelling: above
``openai-gpt`` against ``openai`` (0.75), a hub id."""


@dataclass(frozen=True)
class MediaSettings:
    """How videos and audio are sampled for a model that reads them raw (frames, 16 kHz waveforms)."""

    num_frames: int = 8
    """Frames sampled uniformly from each video (a family that reads a fixed number gets that number)."""
    fps: float | None = None
    """Sample one frame every 1/fps seconds instead of ``num_frames``."""
    video_as: str | None = None
    """Override how video is given: ``video`` (the processor's video input), ``frames`` or ``grid``."""
    cache_dir: str | None = None
    """Where decoded frames and waveforms are cached (default: the encoders' feature cache)."""

    def store(self, fixed_frames: int | None = None) -> Any:
        """The media store these settings describe (``fixed_frames``: what the model's family reads)."""
        from mmsoc.media.cache import FeatureCache
        from mmsoc.media.clips import MediaStore

        cache = FeatureCache(Path(self.cache_dir)) if self.cache_dir else FeatureCache()
        return MediaStore(cache, num_frames=fixed_frames or self.num_frames, fps=None if fixed_frames else self.fps)


@dataclass(frozen=True)
class ModelOptions:
    """What a backend may need besides its argument: the data (baselines train on its train split),
    weights dtype, device and a peft adapter; for a model on a server, its URL and how to call it."""

    data: str = "sample"
    dtype: str = "auto"
    """Weights dtype: auto (the checkpoint's on a GPU that supports it, float32 on the CPU) or a torch dtype name."""
    device: str = "auto"
    adapter: str | None = None
    device_map: str | None = None
    """``auto``: spread one model over this machine's GPUs (accelerate's big-model loading)."""
    attn_implementation: str | None = None
    """Attention kernel (``sdpa`` when None; ``flash_attention_2``, ``eager``)."""
    chat_template: str | None = None
    """A Jinja chat-template file that replaces the checkpoint's template and the family's format."""
    generation_config: str = "neutral"
    """``neutral``: decode with exactly the run's settings; ``checkpoint``: start from its generation_config.json."""
    prefix_cache: str = "auto"
    """``auto``: score and generate from one shared prefix per media set where the family allows; ``off``."""
    prefix_memory: float | None = None
    """GiB the shared prefix path may use (default: what is free on the model's device)."""
    max_context: int | None = None
    """Tokens the model may be given (default: the language model's own context, where its config says)."""
    batch_size: int | str = 8
    """Rows per forward pass of an in-process model, or ``auto`` (never changes results)."""
    api_base: str | None = None
    """Base URL of an OpenAI-compatible server (``http://HOST:PORT/v1``)."""
    concurrency: int = 8
    """Calls in flight at once."""
    timeout: float = 600.0
    """Seconds one call may take before it is retried."""
    retries: int = 6
    """Retries of an item in all (after its first call) when a call timed out, could not connect, or got
    408/409/429/5xx (exponential backoff)."""
    deadline: float | None = None
    """Seconds of wall time for all the run's calls; once passed, the items left fail (None: no deadline)."""
    max_response_bytes: int = MAX_RESPONSE_BYTES
    """Longest answer body read from the server; a longer one is cut and its item fails."""
    media: MediaSettings = field(default_factory=MediaSettings)
    """Frame and audio sampling for models that read raw video and audio."""


@dataclass(frozen=True)
class ModelEntry:
    """A backend: its name, its ``build(arg, options) -> Model`` function, the content it reads."""

    name: str
    build: Callable[[str, ModelOptions], Model]
    """Makes the model (imports what is heavy itself: the backend module is imported to list its name)."""
    modalities: frozenset[str]
    description: str
    adapters: bool = False
    """Whether ``--adapter`` (a peft adapter) applies."""
    remote: bool = False
    """Whether the model is called on a server (``--api-base`` applies)."""
    usage: str = ""
    """How ``--model`` spells it, for help texts (default: the name; ``lm:ID``, ``openai:NAME``)."""
    free_text: bool = True
    """Whether it can answer any prompt in words (``desiq eval --answer generate``); False for a backend
    whose answers come from an MM-Soc task's own labels (``random``, ``text-baseline``)."""
    scores: bool = True
    """Whether it scores given answer options (``score_options``); False for ``text-baseline``, which only
    answers an MM-Soc task's labels and so cannot answer a desiq question at all."""
    checkpoint: bool = False
    """Whether its argument is a transformers checkpoint that ``finetune`` and ``merge-adapter`` load (``hf``)."""

    @property
    def spelling(self) -> str:
        """The ``--model`` spelling of this backend."""
        return self.usage or self.name


BACKENDS: Registry[ModelEntry] = Registry("model backend")
BACKENDS.discover(
    "mmsoc.models.backends", lambda module: [(module.MODEL.name, module.MODEL)] if hasattr(module, "MODEL") else []
)


def resolve(model: str) -> tuple[ModelEntry, str]:
    """(backend, its argument) for a ``--model`` value; an unknown ``PREFIX:`` or a bare near miss of a
    backend's name is a UsageError."""
    name, sep, arg = model.partition(":")
    if name in BACKENDS.names() and name != DEFAULT_BACKEND:
        return BACKENDS.get(name), arg
    if name == DEFAULT_BACKEND and sep:
        return BACKENDS.get(DEFAULT_BACKEND), arg
    if sep and not Path(model).exists():
        known = unknown_message("model backend", name, BACKENDS.names())
        raise UsageError(f"--model {model}: {known} (a hub id or a folder takes no prefix)")
    close = _near_miss(model) if not sep and "/" not in model else []
    if close and not Path(model).exists():
        raise UsageError(
            f"--model {model}: no backend or folder of that name; nearest backend: {close[0]} (a hub id is OWNER/NAME)"
        )
    return BACKENDS.get(DEFAULT_BACKEND), model


def _near_miss(model: str) -> list[str]:
    """The backend name a bare value misspells, if any (``rando``: ``random``; never a hub id such as ``gpt2``)."""
    named = [name for name in BACKENDS.names() if name != DEFAULT_BACKEND]
    return difflib.get_close_matches(model.lower(), named, n=1, cutoff=NEAR_MISS)


def checkpoint_of(model: str, does: str) -> str:
    """The hub id or folder a ``--model`` value names for a command that loads a transformers checkpoint
    itself (``does``: what it does with it, ``mmsoc finetune trains``); any other backend is a UsageError."""
    entry, arg = resolve(model)
    if not entry.checkpoint:
        raise UsageError(
            f"--model {model}: {does} a transformers checkpoint (a hub id or folder, or hf:ID), "
            f"not the {entry.name} backend"
        )
    if not arg:
        raise UsageError(f"--model {model}: name the checkpoint (a hub id or folder, or hf:ID)")
    return arg


def modalities(model: str) -> frozenset[str]:
    """What the backend of ``model`` reads (``text``, ``image``, ``video``, ``audio``), without loading it."""
    return resolve(model)[0].modalities


def make_model(model: str, options: ModelOptions = ModelOptions()) -> Model:
    """Build the model a ``--model`` value names."""
    entry, arg = resolve(model)
    if options.adapter and not entry.adapters:
        raise ValueError(f"--adapter applies to transformers models, not to {model!r}")
    if options.api_base and not entry.remote:
        raise ValueError(f"--api-base applies to a model on a server (--model openai:NAME), not to {model!r}")
    with loading():
        return entry.build(arg, options)


def model_help() -> str:
    """The ``--model`` help: every backend's spelling (plugins too), nothing heavy imported."""
    known = BACKENDS.known()
    spellings = [entry.spelling + ("" if origin == BUILT_IN else f" ({origin})") for _, entry, origin in known]
    return f"The model: {', '.join(spellings)} (`mmsoc list models` describes each)."
