"""Which linear layers LoRA adapts: the language model's, found in the loaded model, by its own names.

The language model is the model's ``language_model`` (BLIP-2, InstructBLIP: the whole causal or
encoder-decoder LM) or, without one, what ``get_decoder()`` returns (LLaVA, Qwen2-VL and Qwen2-Audio:
``model.language_model``; Idefics3 and SmolVLM: ``model.text_model``), with the output head
(``get_output_embeddings()``) wherever it sits. Inside it a linear layer is

- an attention projection when a module above it is an attention block (a class named ``...Attention``:
  ``q_proj, k_proj, v_proj, o_proj`` in Llama and Qwen2, ``out_proj`` in OPT, ``q, k, v, o`` in
  T5's encoder, decoder and cross-attention),
- an MLP projection when it lies elsewhere in a numbered layer (``gate_proj, up_proj, down_proj``;
  OPT's ``fc1, fc2``; T5's ``wi`` or ``wi_0, wi_1`` and ``wo``),
- neither otherwise (the output head ``lm_head``, OPT's ``project_in`` / ``project_out``).

The vision tower, Q-Former, projector and audio tower lie outside the language model, so no choice
reaches them. The result is the list of full module names handed to peft as ``target_modules``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from mmsoc.core.io import UsageError

Role = Literal["attention", "mlp", "other"]
ATTENTION = "attention"
"""The ``--target-modules`` name of the architecture's attention projections, whatever it calls them."""


@dataclass(frozen=True)
class Linear:
    """One linear layer of the language model: its full module name in the model, and its role."""

    name: str
    role: Role

    @property
    def leaf(self) -> str:
        return self.name.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class LanguageModel:
    """Where the language model sits in the model (``prefix``), its class, and its linear layers."""

    prefix: str
    class_name: str
    layers: tuple[Linear, ...]

    def leaves(self) -> list[str]:
        """The distinct names its linear layers go by, sorted: what ``--target-modules`` can name."""
        return sorted({layer.leaf for layer in self.layers})

    def where(self) -> str:
        return f"{self.class_name} at {self.prefix or 'the top'}"


def _root(model: Any) -> Any:
    """The language-model module: ``language_model`` where the model has one, else ``get_decoder()``."""
    from torch import nn

    found = getattr(model, "language_model", None)
    if not isinstance(found, nn.Module):
        found = model.get_decoder()
    config = model.config
    if found is model and config.get_text_config() is not config:
        raise UsageError(f"cannot find the language model of {type(model).__name__}; LoRA has nothing to adapt")
    return found


def _role(path: list[Any], name: str) -> Role:
    """``path``: the modules from the language model down to the layer, ``name``: its name below it."""
    if any(type(module).__name__.endswith("Attention") for module in path):
        return "attention"
    return "mlp" if any(part.isdigit() for part in name.split(".")) else "other"


def find_language_model(model: Any) -> LanguageModel:
    """The language model of ``model`` and every linear layer in it (the output head included)."""
    from torch import nn

    root = _root(model)
    prefix = next(name for name, module in model.named_modules() if module is root)
    modules = dict(root.named_modules())
    layers = []
    for name, module in modules.items():
        if isinstance(module, nn.Linear):
            parts = name.split(".")
            path = [modules[".".join(parts[:i])] for i in range(1, len(parts))]
            layers.append(Linear(f"{prefix}.{name}" if prefix else name, _role(path, name)))
    head = model.get_output_embeddings()
    if isinstance(head, nn.Linear) and all(module is not head for module in modules.values()):
        layers.append(Linear(next(name for name, module in model.named_modules() if module is head), "other"))
    return LanguageModel(prefix, type(root).__name__, tuple(layers))


def layer_names(text: str) -> tuple[str, ...]:
    """``--target-modules``: comma-separated names, ``attention`` (the default) naming the attention projections."""
    return tuple(name.strip() for name in text.split(",") if name.strip()) or (ATTENTION,)


def lora_targets(model: Any, names: Sequence[str] = (ATTENTION,), mlp: bool = False) -> list[str]:
    """Full names of the layers to adapt: the language model's attention projections where ``names`` holds
    ``attention``, its linear layers called by the other ``names`` (their last name part, e.g. ``q_proj``
    or ``lm_head``), and with ``mlp`` its MLP projections. A name that matches no layer is a ``UsageError``
    listing the names there are."""
    lm = find_language_model(model)
    named = _named(lm, [name for name in names if name != ATTENTION])
    if ATTENTION in names or not names:
        named |= _attention(lm)
    return [layer.name for layer in lm.layers if layer.name in named or (mlp and layer.role == "mlp")]


def _named(lm: LanguageModel, names: Sequence[str]) -> set[str]:
    missing = [name for name in names if name not in lm.leaves()]
    if missing:
        raise UsageError(
            f"--target-modules: no linear layer named {', '.join(missing)} in the language model "
            f"({lm.where()}); its linear layers are named {', '.join(lm.leaves())}"
        )
    return {layer.name for layer in lm.layers if layer.leaf in names}


def _attention(lm: LanguageModel) -> set[str]:
    found = {layer.name for layer in lm.layers if layer.role == "attention"}
    if not found:
        raise UsageError(
            f"found no attention projections in the language model ({lm.where()}); name the layers to adapt "
            f"with --target-modules, from {', '.join(lm.leaves())}"
        )
    return found
