"""Any transformers image-text-to-text model (LLaVA, BLIP-2, InstructBLIP, ...) behind the model contract."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from mmsoc.core.startup import loading
from mmsoc.models.base import GenerationSettings, OptionScores, Request
from mmsoc.models.families import Family, detect_family
from mmsoc.models.registry import MediaSettings, ModelEntry, ModelOptions

DTYPES = ("float32", "float16", "bfloat16")


@loading()  # also for the fine-tuning and merge commands, which load without make_model
def load_hf_model(
    model_id_or_dir: str, dtype: str = "float32", device: str = "auto", adapter: str | None = None
) -> tuple[Any, Any, Family]:
    """Load (model, processor, family) from a hub id or local folder, optionally with a peft adapter.

    The processor pads on the left, so decoder-only models see every prompt end at the same column.
    The model class comes from its family's media recipe (image-text-to-text, else any multimodal LM).
    """
    import torch
    from transformers import AutoConfig, AutoProcessor

    from mmsoc.core.distributed import resolve_device
    from mmsoc.models.recipes import model_class, recipe_for

    if dtype not in DTYPES and dtype != "auto":
        raise ValueError(f"unknown dtype {dtype!r}; choose one of auto, {', '.join(DTYPES)}")
    model: Any
    try:
        processor = AutoProcessor.from_pretrained(model_id_or_dir)
        config = AutoConfig.from_pretrained(model_id_or_dir)
        model = model_class(config, recipe_for(config, processor)).from_pretrained(
            model_id_or_dir, dtype="auto" if dtype == "auto" else getattr(torch, dtype)
        )
    except (OSError, ValueError) as err:  # missing files, or a folder transformers cannot read
        raise OSError(f"cannot load model {model_id_or_dir!r} (a local folder or a reachable hub id): {err}") from err
    family = detect_family(model.config)
    if adapter:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, adapter)
    processor.tokenizer.padding_side = "left"
    return model.to(resolve_device(device)).eval(), processor, family


def is_encoder_decoder(model: Any) -> bool:
    config = model.config
    text = getattr(config, "text_config", config)
    return bool(getattr(config, "is_encoder_decoder", False) or getattr(text, "is_encoder_decoder", False))


class HFModel:
    """Batched generation with left padding and per-request sampling seeds; option scoring by a
    forward pass over prompt + option (right padded, so positions never depend on the batch)."""

    def __init__(
        self,
        model_id_or_dir: str,
        dtype: str = "float32",
        device: str = "auto",
        adapter: str | None = None,
        media: MediaSettings = MediaSettings(),
    ):
        from mmsoc.models.recipes import recipe_for

        self.name = model_id_or_dir
        self.model, self.processor, self.family = load_hf_model(model_id_or_dir, dtype, device, adapter)
        self.recipe = recipe_for(self.model.config, self.processor, media.video_as)
        self.modalities = self.recipe.modalities
        self.media = media.store(self.recipe.num_frames)
        self._prompt_is_echoed = not is_encoder_decoder(self.model)
        self._tokenizer_lock = threading.Lock()
        """The processor's tokenizer is not safe for concurrent use: ``prepare`` runs on another thread."""

    def prepare(self, requests: Sequence[Request], padding_side: str = "left") -> Any:
        """Processor inputs for a batch (media as the family takes them), on the CPU; thread-safe."""
        from mmsoc.models.video import processor_inputs

        with self._tokenizer_lock:
            return processor_inputs(self.processor, self.family, self.recipe, self.media, requests, padding_side)

    def encode(self, requests: Sequence[Request], padding_side: str = "left") -> Any:
        """Processor inputs for a batch, on the model's device and dtype."""
        return self._on_device(self.prepare(requests, padding_side))

    def _on_device(self, batch: Any) -> Any:
        return batch.to(self.model.device, dtype=self.model.dtype)

    def generate(self, requests: Sequence[Request], settings: GenerationSettings, prepared: Any = None) -> list[str]:
        """One response per request; identical whatever the batch size. ``prepared``: ``prepare(requests)``."""
        import torch

        from mmsoc.models.sampling import PerRowSampler

        if not requests:
            return []
        batch = self._on_device(prepared if prepared is not None else self.prepare(requests))
        processors = (
            []
            if settings.greedy
            else [PerRowSampler([r.rng_seed for r in requests], settings.temperature, settings.top_p)]
        )
        with torch.inference_mode():
            out = self.model.generate(
                **batch,
                max_new_tokens=settings.max_new_tokens,
                do_sample=False,
                logits_processor=processors,
                pad_token_id=self.processor.tokenizer.pad_token_id,
            )
        if self._prompt_is_echoed:
            out = out[:, batch["input_ids"].shape[1] :]
        with self._tokenizer_lock:
            texts = self.processor.batch_decode(out, skip_special_tokens=True)
        return [text.strip() for text in texts]

    def score_options(self, requests: Sequence[Request], options: Sequence[Sequence[str]]) -> list[OptionScores]:
        """Sum of the log-probabilities of each option's tokens after the prompt."""
        from mmsoc.models.loglik import continuation_logliks

        rows = [(request, option) for request, opts in zip(requests, options) for option in opts]
        if not rows:
            return [OptionScores((), ()) for _ in requests]
        tokenizer = self.processor.tokenizer
        targets = [tokenizer(option, add_special_tokens=False)["input_ids"] for _, option in rows]
        batch = self.encode([request for request, _ in rows], padding_side="right")
        logliks = continuation_logliks(
            self.model, batch, targets, tokenizer.pad_token_id, encoder_decoder=not self._prompt_is_echoed
        )
        out, k = [], 0
        for opts in options:
            out.append(OptionScores(tuple(logliks[k : k + len(opts)]), tuple(len(o) for o in opts)))
            k += len(opts)
        return out


def build(arg: str, options: ModelOptions) -> HFModel:
    return HFModel(arg, dtype=options.dtype, device=options.device, adapter=options.adapter, media=options.media)


MODEL = ModelEntry(
    "hf",
    "mmsoc.models.backends.hf:build",
    frozenset({"text", "image"}),
    "any transformers image-text-to-text model (or video / audio multimodal LM): a hub id or a local folder",
    adapters=True,
)
