"""LoRA fine-tuning of an image-text-to-text model with peft and accelerate.

One optimizer step sees ``batch_size`` examples: micro-batches on every process, accumulated as
needed. Checkpoints hold the adapter weights, optimizer, scheduler and RNG states (accelerate's
``save_state``) so ``resume=True`` continues exactly where the last checkpoint left off.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from accelerate import Accelerator
from peft import LoraConfig, get_peft_model, set_peft_model_state_dict
from safetensors.torch import load_file
from torch.utils.data import DataLoader
from tqdm.auto import tqdm
from transformers import get_cosine_schedule_with_warmup

from mmsoc.models.families import Family, format_prompt
from mmsoc.core.distributed import make_accelerator, process_state
from mmsoc.runners.finetune.collate import TrainCollator
from mmsoc.runners.finetune.data import TrainItem
from mmsoc.core.io import JsonlAppender, read_jsonl, write_json, write_jsonl

TRAIN_LOG = "train_log.jsonl"
CONFIG_FILE = "finetune_config.json"
CHECKPOINTS = "checkpoints"
STATE_FILE = "trainer_state.json"
ADAPTER_WEIGHTS = "adapter_model.safetensors"


@dataclass(frozen=True)
class LoraSettings:
    """LoRA shape; adapters go on the language model's linear layers with these names (``lm_head``
    included when named), never on the vision tower or projector."""

    rank: int = 8
    alpha: int = 16
    dropout: float = 0.05
    target_modules: tuple[str, ...] = ("q_proj", "k_proj", "v_proj", "o_proj")

    def peft_config(self) -> LoraConfig:
        names = "|".join(re.escape(name) for name in self.target_modules)
        return LoraConfig(r=self.rank, lora_alpha=self.alpha, lora_dropout=self.dropout,
                          target_modules=rf"(.*language_model.*\.)?({names})")


@dataclass(frozen=True)
class TrainSettings:
    """Optimisation settings; defaults are the paper's (1 epoch, batch 16, warmup 0.03, lr 2e-4, cosine)."""

    epochs: int = 1
    batch_size: int = 16
    micro_batch_size: int = 4
    learning_rate: float = 2e-4
    warmup_ratio: float = 0.03
    weight_decay: float = 0.0
    max_grad_norm: float = 1.0
    max_steps: int | None = None
    save_every: int = 0
    seed: int = 0
    precision: str = "auto"
    max_target_tokens: int = 256


@dataclass
class TrainResult:
    """Where the adapter went, how many optimizer steps ran in total, and the loss of each step."""

    adapter_dir: Path
    steps: int
    losses: list[float] = field(default_factory=list)
    resumed_from: int = 0


def resolve_precision(precision: str = "auto") -> str:
    """accelerate's mixed-precision mode: ``bf16`` where the GPU supports it (for ``auto``), else ``no``."""
    if precision == "auto":
        return "bf16" if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else "no"
    if precision not in ("bf16", "no"):
        raise ValueError(f"precision must be auto, bf16 or no, not {precision!r}")
    return precision


def latest_checkpoint(out_dir: str | Path) -> Path | None:
    """The newest complete checkpoint (its state file is written last) or None."""
    done = [path.parent for path in Path(out_dir, CHECKPOINTS).glob(f"step-*/{STATE_FILE}")]
    return max(done, key=lambda path: int(path.name.split("-")[1]), default=None)


def _register_adapter_hooks(accelerator: Accelerator) -> None:
    """Checkpoints store only the adapter weights, never a copy of the frozen base model."""

    def save_hook(models: list, weights: list, output_dir: str) -> None:
        for model in models:
            if accelerator.is_main_process:
                accelerator.unwrap_model(model).save_pretrained(output_dir)
            if weights:
                weights.pop()

    def load_hook(models: list, input_dir: str) -> None:
        while models:
            model = accelerator.unwrap_model(models.pop())
            set_peft_model_state_dict(model, load_file(str(Path(input_dir, ADAPTER_WEIGHTS))))

    accelerator.register_save_state_pre_hook(save_hook)
    accelerator.register_load_state_pre_hook(load_hook)


def _check_out_dir(out_dir: Path, resume: bool) -> None:
    if resume:
        return
    taken = [name for name in (ADAPTER_WEIGHTS, TRAIN_LOG, CHECKPOINTS) if (out_dir / name).exists()]
    if taken:
        raise FileExistsError(f"{out_dir} already holds {', '.join(taken)}; resume it or choose a new folder")


def train_lora(model: Any, processor: Any, family: Family, items: Sequence[TrainItem], out_dir: str | Path,
               lora: LoraSettings = LoraSettings(), settings: TrainSettings = TrainSettings(),
               resume: bool = False, meta: dict | None = None, progress: bool = False,
               on_step: Callable[[int, float], None] | None = None) -> TrainResult:
    """Fine-tune LoRA adapters on ``items`` and save them (peft format) to ``out_dir``.

    Writes ``train_log.jsonl`` (loss per optimizer step), checkpoints every ``save_every`` steps
    under ``checkpoints/step-N`` and ``finetune_config.json``. ``on_step(step, loss)`` is called
    after each optimizer step.
    """
    if not items:
        raise ValueError("no training items")
    out_dir = Path(out_dir)
    _check_out_dir(out_dir, resume)
    micro = min(settings.micro_batch_size, settings.batch_size)
    world = process_state().num_processes
    accum = max(1, math.ceil(settings.batch_size / (micro * world)))
    accelerator = make_accelerator(gradient_accumulation_steps=accum,
                                   mixed_precision=resolve_precision(settings.precision))
    _register_adapter_hooks(accelerator)
    torch.manual_seed(settings.seed)

    model = get_peft_model(model, lora.peft_config())
    model.train()
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=settings.learning_rate,
                                  weight_decay=settings.weight_decay)
    micro_per_epoch = math.ceil(len(items) / (micro * world))
    steps_per_epoch = math.ceil(micro_per_epoch / accum)
    total = steps_per_epoch * settings.epochs
    if settings.max_steps:
        total = min(total, settings.max_steps)
    scheduler = get_cosine_schedule_with_warmup(optimizer, math.ceil(settings.warmup_ratio * total), total)
    model, optimizer = accelerator.prepare(model, optimizer)
    accelerator.register_for_checkpointing(scheduler)
    collator = TrainCollator(processor, lambda r: format_prompt(family, processor, r.parts),
                             settings.max_target_tokens)

    step, start = 0, None
    if resume and (start := latest_checkpoint(out_dir)) is not None:
        accelerator.load_state(str(start))
        step = json.loads((start / STATE_FILE).read_text())["step"]
    losses = _restart_log(out_dir, step, accelerator)
    config = {"base_model": getattr(accelerator.unwrap_model(model).config, "_name_or_path", ""), "family": family,
              "lora": asdict(lora), "train": asdict(settings), "processes": world, "gradient_accumulation": accum,
              "effective_batch_size": micro * world * accum, "total_steps": total, "items": len(items),
              **(meta or {})}
    bar = tqdm(total=total, initial=step, desc="fine-tuning", disable=not (progress and accelerator.is_main_process))
    log = JsonlAppender(out_dir / TRAIN_LOG) if accelerator.is_main_process else None
    window: list[torch.Tensor] = []
    for epoch in range(step // steps_per_epoch, settings.epochs):
        if step >= total:
            break
        # The loader's own generator keeps starting an epoch from drawing on the global RNG (LoRA dropout).
        loader = accelerator.prepare(DataLoader(_epoch_order(items, settings.seed, epoch), batch_size=micro,
                                                collate_fn=collator, generator=torch.Generator().manual_seed(epoch)))
        done_in_epoch = step - epoch * steps_per_epoch
        if done_in_epoch:
            loader = accelerator.skip_first_batches(loader, done_in_epoch * accum)
        for batch in loader:
            with accelerator.accumulate(model):
                loss = model(**batch).loss
                accelerator.backward(loss)
                if accelerator.sync_gradients:
                    accelerator.clip_grad_norm_(model.parameters(), settings.max_grad_norm)
                optimizer.step()
                optimizer.zero_grad()
            window.append(loss.detach())
            if not accelerator.sync_gradients:
                continue
            lr = scheduler.get_last_lr()[0]
            scheduler.step()
            step += 1
            value = accelerator.gather(torch.stack(window).mean()[None]).mean().item()
            window.clear()
            losses.append(value)
            if log is not None:
                log.append({"step": step, "epoch": epoch, "loss": value, "lr": lr})
            bar.update(1)
            if settings.save_every and step % settings.save_every == 0:
                _checkpoint(accelerator, out_dir, step)
            if on_step is not None:
                on_step(step, value)
            if step >= total:
                break
    bar.close()
    if log is not None:
        log.close()
    accelerator.wait_for_everyone()
    if accelerator.is_main_process:
        accelerator.unwrap_model(model).save_pretrained(out_dir)
        write_json(out_dir / CONFIG_FILE, {**config, "steps": step})
    accelerator.wait_for_everyone()
    return TrainResult(out_dir, step, losses, resumed_from=int(start.name.split("-")[1]) if start else 0)


def _epoch_order(items: Sequence[TrainItem], seed: int, epoch: int) -> list[TrainItem]:
    """A seeded shuffle per epoch: the same seed gives the same batches on any machine."""
    order = torch.randperm(len(items), generator=torch.Generator().manual_seed(seed * 1000 + epoch))
    return [items[i] for i in order.tolist()]


def _restart_log(out_dir: Path, step: int, accelerator: Accelerator) -> list[float]:
    """Losses logged up to ``step``; later rows (from a run killed after its last checkpoint) are dropped."""
    path = out_dir / TRAIN_LOG
    rows = [row for _, row in read_jsonl(path) if row["step"] <= step] if path.exists() and step else []
    if accelerator.is_main_process:
        out_dir.mkdir(parents=True, exist_ok=True)
        write_jsonl(path, rows)
    accelerator.wait_for_everyone()
    return [row["loss"] for row in rows]


def _checkpoint(accelerator: Accelerator, out_dir: Path, step: int) -> None:
    folder = out_dir / CHECKPOINTS / f"step-{step:06d}"
    accelerator.save_state(str(folder))
    if accelerator.is_main_process:
        write_json(folder / STATE_FILE, {"step": step})
    accelerator.wait_for_everyone()
