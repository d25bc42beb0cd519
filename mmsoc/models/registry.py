"""Model backends by name, found by discovery: each module of ``mmsoc.models.backends`` declares
``MODEL`` (a :class:`ModelEntry`). A ``--model`` value is ``NAME`` or ``NAME:ARG`` for a registered
backend (``random``, ``text-baseline:ID``); anything else is a transformers model id or folder for
the ``hf`` backend. Backend modules import nothing heavy at import time."""

from __future__ import annotations

from dataclasses import dataclass

from mmsoc.core.registry import Registry, load_target
from mmsoc.models.base import Model

DEFAULT_BACKEND = "hf"


@dataclass(frozen=True)
class ModelOptions:
    """What a backend may need besides its argument: the data (baselines train on its train split),
    weights dtype, device and a peft adapter."""

    data: str = "sample"
    dtype: str = "float32"
    device: str = "auto"
    adapter: str | None = None


@dataclass(frozen=True)
class ModelEntry:
    """A backend: its name, its ``module:function(arg, options) -> Model`` builder, the content it reads."""

    name: str
    build: str
    modalities: frozenset[str]
    description: str
    adapters: bool = False
    """Whether ``--adapter`` (a peft adapter) applies."""


BACKENDS: Registry[ModelEntry] = Registry("model backend")
BACKENDS.discover("mmsoc.models.backends", lambda module: [(module.MODEL.name, module.MODEL)]
                  if hasattr(module, "MODEL") else [])


def resolve(model: str) -> tuple[ModelEntry, str]:
    """(backend, its argument) for a ``--model`` value."""
    name, sep, arg = model.partition(":")
    if name in BACKENDS.names() and name != DEFAULT_BACKEND:
        return BACKENDS.get(name), arg
    if name == DEFAULT_BACKEND and sep:
        return BACKENDS.get(DEFAULT_BACKEND), arg
    return BACKENDS.get(DEFAULT_BACKEND), model


def modalities(model: str) -> frozenset[str]:
    """What the backend of ``model`` reads (``text``, ``image``, ``video``, ``audio``), without loading it."""
    return resolve(model)[0].modalities


def make_model(model: str, options: ModelOptions = ModelOptions()) -> Model:
    """Build the model a ``--model`` value names."""
    entry, arg = resolve(model)
    if options.adapter and not entry.adapters:
        raise ValueError(f"--adapter applies to transformers models, not to {model!r}")
    build = load_target(entry.build)
    return build(arg, options)  # type: ignore[operator]


def describe() -> list[tuple[str, str]]:
    """(name, description) of every backend, for help texts."""
    return [(name, entry.description) for name, entry in BACKENDS.items()]
