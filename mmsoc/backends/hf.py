"""Any transformers image-text-to-text model (LLaVA, BLIP-2, InstructBLIP, ...) as a batch backend."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from PIL import Image

from mmsoc.backends.base import GenerationSettings, Request
from mmsoc.backends.chat import Family, detect_family, format_prompt
from mmsoc.backends.sampling import PerRowSampler

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def resolve_device(device: str = "auto") -> torch.device:
    """``auto`` -> this process's accelerator (one per process under ``accelerate launch``) or the CPU."""
    if device != "auto":
        return torch.device(device)
    from mmsoc.distributed import process_state

    return process_state().device


def load_hf_model(model_id_or_dir: str, dtype: str = "float32", device: str = "auto",
                  adapter: str | None = None) -> tuple[Any, Any, Family]:
    """Load (model, processor, family) from a hub id or local folder, optionally with a peft adapter.

    The processor pads on the left, so decoder-only models see every prompt end at the same column.
    """
    from transformers import AutoModelForImageTextToText, AutoProcessor

    if dtype not in DTYPES and dtype != "auto":
        raise ValueError(f"unknown dtype {dtype!r}; choose one of auto, {', '.join(DTYPES)}")
    try:
        processor = AutoProcessor.from_pretrained(model_id_or_dir)
        model = AutoModelForImageTextToText.from_pretrained(model_id_or_dir, dtype=DTYPES.get(dtype, "auto"))
    except (OSError, ValueError) as err:  # missing files, or a folder transformers cannot read
        raise OSError(f"cannot load model {model_id_or_dir!r} (a local folder or a reachable hub id): {err}") from err
    family = detect_family(model.config)
    if adapter:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, adapter)
    processor.tokenizer.padding_side = "left"
    return model.to(resolve_device(device)).eval(), processor, family


def _is_encoder_decoder(model: Any) -> bool:
    config = model.config
    text = getattr(config, "text_config", config)
    return bool(getattr(config, "is_encoder_decoder", False) or getattr(text, "is_encoder_decoder", False))


class HFBackend:
    """Batched generation with left padding and per-request sampling seeds."""

    def __init__(self, model_id_or_dir: str, dtype: str = "float32", device: str = "auto",
                 adapter: str | None = None):
        self.name = model_id_or_dir
        self.model, self.processor, self.family = load_hf_model(model_id_or_dir, dtype, device, adapter)
        self._prompt_is_echoed = not _is_encoder_decoder(self.model)

    def encode(self, requests: Sequence[Request]) -> Any:
        """Processor inputs for a batch, on the model's device and dtype."""
        if any(not r.images for r in requests):
            missing = next(r.id for r in requests if not r.images)
            raise ValueError(f"request {missing!r} has no image; image-text models need one")
        prompts = [format_prompt(self.family, self.processor, r.prompt, has_image=True) for r in requests]
        images = []
        for request in requests:
            with Image.open(request.images[0]) as image:
                images.append(image.convert("RGB"))
        batch = self.processor(images=images, text=prompts, return_tensors="pt", padding=True)
        qformer = getattr(self.processor, "qformer_tokenizer", None)
        if qformer is not None:  # a BERT-style Q-Former numbers positions from the left: pad on the right
            encoded = qformer(prompts, padding=True, padding_side="right", return_tensors="pt")
            batch["qformer_input_ids"], batch["qformer_attention_mask"] = encoded["input_ids"], encoded["attention_mask"]
        return batch.to(self.model.device, dtype=self.model.dtype)

    def generate(self, requests: Sequence[Request], settings: GenerationSettings) -> list[str]:
        """One response per request (first image of each); identical whatever the batch size."""
        if not requests:
            return []
        batch = self.encode(requests)
        processors = [] if settings.greedy else [
            PerRowSampler([r.rng_seed for r in requests], settings.temperature, settings.top_p)]
        with torch.inference_mode():
            out = self.model.generate(**batch, max_new_tokens=settings.max_new_tokens, do_sample=False,
                                      logits_processor=processors,
                                      pad_token_id=self.processor.tokenizer.pad_token_id)
        if self._prompt_is_echoed:
            out = out[:, batch["input_ids"].shape[1]:]
        return [text.strip() for text in self.processor.batch_decode(out, skip_special_tokens=True)]
