"""Loading a transformers multimodal model (weights, processor, family) from a hub id or a local folder.

The weights go straight onto their device (transformers' ``device_map``), never whole onto the CPU
first. ``dtype="auto"`` is the checkpoint's own dtype on a CUDA device (bfloat16 becomes float16 where
the GPU has no bfloat16) and float32 on the CPU. ``device_map="auto"`` spreads one model over this
machine's GPUs (accelerate's big-model loading), so it is refused under ``accelerate launch`` with
several processes, where each process holds its own copy. What was used is returned with the model.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from mmsoc.core.io import UsageError
from mmsoc.core.names import cannot_load
from mmsoc.core.startup import loading
from mmsoc.models.families import Family, detect_family

if TYPE_CHECKING:
    import torch

DTYPES = ("float32", "float16", "bfloat16")
DEVICE_MAPS = ("auto",)
ATTN_IMPLEMENTATIONS = ("sdpa", "flash_attention_2", "eager")


@dataclass(frozen=True)
class LoadInfo:
    """How a model was loaded, as a run records it."""

    dtype: str
    """The weights' dtype (``bfloat16``, ``float32``, ...)."""
    device: str
    """Where the weights are: ``cuda:0``, ``cpu``; with a device map, every device, comma-separated."""
    device_map: str | None
    attn_implementation: str
    """The attention kernel the model runs (``sdpa``; ``eager`` for a model without an sdpa kernel)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Loaded:
    """A loaded model, its processor and family, and how it was loaded; unpacks as (model, processor, family)."""

    model: Any
    processor: Any
    family: Family
    info: LoadInfo

    def __iter__(self) -> Iterator[Any]:
        return iter((self.model, self.processor, self.family))


def check_device_map(device_map: str | None, state: Any = None) -> None:
    """Refuse an unknown device map, and ``auto`` (one model over several GPUs) in a data-parallel run
    (``state``: this process's place among the run's, by default :func:`~mmsoc.core.distributed.run_state`)."""
    if device_map is None:
        return
    if device_map not in DEVICE_MAPS:
        raise UsageError(f"--device-map {device_map!r}: choose auto or none")
    if state is None:
        from mmsoc.core.distributed import run_state

        state = run_state()
    if state.num_processes > 1:
        raise UsageError(
            f"--device-map auto spreads one model over this machine's GPUs; under accelerate launch each of the "
            f"{state.num_processes} processes loads its own copy: run one process, or drop --device-map"
        )


def check_attn_implementation(attn_implementation: str | None) -> None:
    """Refuse an unknown kernel, and ``flash_attention_2`` without the ``flash_attn`` package."""
    import importlib.util

    if attn_implementation is None:
        return
    if attn_implementation not in ATTN_IMPLEMENTATIONS:
        raise UsageError(
            f"--attn-implementation {attn_implementation!r}: choose one of {', '.join(ATTN_IMPLEMENTATIONS)}"
        )
    if attn_implementation == "flash_attention_2" and importlib.util.find_spec("flash_attn") is None:
        raise UsageError(
            "--attn-implementation flash_attention_2 needs the flash_attn package (pip install flash-attn), "
            "which is not installed; use sdpa or eager"
        )


def checkpoint_dtype(config: Any) -> str | None:
    """The dtype a checkpoint's config records (``dtype``, or the older ``torch_dtype``; else its text model's)."""
    for part in (config, getattr(config, "text_config", None)):
        value = getattr(part, "dtype", None) or getattr(part, "torch_dtype", None)
        if value is not None:
            return str(value).removeprefix("torch.")
    return None


def resolve_dtype(dtype: str, config: Any, device: torch.device) -> Any:
    """The torch dtype to load: an explicit name as given; ``auto``: float32 on the CPU, the checkpoint's
    on CUDA (float16 for bfloat16 where the GPU lacks it; transformers' own ``auto`` if none is recorded)."""
    import torch

    if dtype not in DTYPES and dtype != "auto":
        raise UsageError(f"--dtype {dtype!r}: choose one of auto, {', '.join(DTYPES)}")
    if dtype != "auto":
        return getattr(torch, dtype)
    if device.type != "cuda":
        return torch.float32
    saved = checkpoint_dtype(config)
    if saved == "bfloat16" and not torch.cuda.is_bf16_supported():
        return torch.float16
    return getattr(torch, saved) if saved in DTYPES else "auto"


@loading()  # also for the fine-tuning and merge commands, which load without make_model
def load_hf_model(
    model_id_or_dir: str,
    dtype: str = "auto",
    device: str = "auto",
    adapter: str | None = None,
    *,
    device_map: str | None = None,
    attn_implementation: str | None = None,
) -> Loaded:
    """Load a model from a hub id or local folder, optionally with a peft adapter, onto ``device``
    (or, with ``device_map="auto"``, over this machine's GPUs).

    The processor pads on the left, so decoder-only models see every prompt end at the same column.
    The model class comes from its family's media recipe (image-text-to-text, else any multimodal LM).
    ``attn_implementation`` None: transformers' choice (sdpa where the model has it, else eager).
    """
    from transformers import AutoConfig, AutoProcessor

    from mmsoc.core.distributed import resolve_device
    from mmsoc.models.recipes import model_class, recipe_for

    check_device_map(device_map)
    check_attn_implementation(attn_implementation)
    target = resolve_device(device)
    model: Any
    try:
        processor = AutoProcessor.from_pretrained(model_id_or_dir)
        config = AutoConfig.from_pretrained(model_id_or_dir)
        model = model_class(config, recipe_for(config, processor)).from_pretrained(
            model_id_or_dir,
            dtype=resolve_dtype(dtype, config, target),
            device_map=device_map or {"": target},
            attn_implementation=attn_implementation,
        )
    except (OSError, ValueError) as err:  # missing files, or a folder transformers cannot read
        raise cannot_load(model_id_or_dir, err) from err
    family, info = detect_family(model.config), load_info(model, device_map)
    if adapter:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, adapter)
    processor.tokenizer.padding_side = "left"
    return Loaded(model.eval(), processor, family, info)


def load_info(model: Any, device_map: str | None) -> LoadInfo:
    """What ``model`` runs with: its dtype, devices and attention kernel."""
    placed = getattr(model, "hf_device_map", None) or {}
    devices = list(dict.fromkeys(_device_name(where) for where in placed.values())) or [str(model.device)]
    return LoadInfo(
        dtype=str(model.dtype).removeprefix("torch."),
        device=",".join(devices),
        device_map=device_map,
        attn_implementation=str(model.config._attn_implementation),
    )


def _device_name(where: Any) -> str:
    """A device map's value (a GPU index, ``cpu``, ``disk`` or a device) as a device name."""
    return f"cuda:{where}" if isinstance(where, int) else str(where)


def is_encoder_decoder(model: Any) -> bool:
    config = model.config
    text = getattr(config, "text_config", config)
    return bool(getattr(config, "is_encoder_decoder", False) or getattr(text, "is_encoder_decoder", False))
