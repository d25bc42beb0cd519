"""LoRA fine-tuning of an image-text-to-text model with peft and accelerate, on the shared training loop.

One optimizer step sees ``batch_size`` examples: micro-batches on every process, accumulated as
needed. ``resume=True`` continues exactly where the last checkpoint left off; a checkpoint holds no
pickle and loads without running code from it::

    checkpoints/step-000004/
        adapter_model.safetensors, adapter_config.json   the adapter so far (usable as --adapter)
        optimizer.safetensors + optimizer.json           AdamW state: tensors, and the rest as JSON
        scheduler.safetensors + scheduler.json           the LR schedule's position
        rng.rank<r>.safetensors + rng.rank<r>.json       each process's Python, NumPy and torch generators
        trainer_state.json                               {"step": 4, "format": "mmsoc-checkpoint-v1"}

A checkpoint is built in ``.step-N.partial`` and renamed into place, so a listed one is complete.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from accelerate import Accelerator
from accelerate.utils import set_seed
from peft import LoraConfig, get_peft_model, set_peft_model_state_dict
from safetensors.torch import load_file
from tqdm.auto import tqdm
from transformers import get_cosine_schedule_with_warmup

from mmsoc.core.distributed import make_accelerator, process_state
from mmsoc.core.io import UsageError, read_jsonl, write_json, write_jsonl
from mmsoc.core.jsonl_log import JsonlAppender
from mmsoc.core.runfolder import RunFolder
from mmsoc.models.families import Family
from mmsoc.models.prompting import format_prompt
from mmsoc.runners.finetune.collate import TrainCollator
from mmsoc.runners.finetune.data import TrainItem
from mmsoc.runners.finetune.lora_targets import ATTENTION, lora_targets
from mmsoc.runners.training_loop import (
    LoopSettings,
    LoopState,
    load_rng,
    load_state,
    refuse_pickles,
    save_rng,
    save_state,
    train_loop,
)

TRAIN_LOG = "train_log.jsonl"
CONFIG_FILE = "finetune_config.json"
CHECKPOINTS = "checkpoints"
STATE_FILE = "trainer_state.json"
ADAPTER_WEIGHTS = "adapter_model.safetensors"
CHECKPOINT_FORMAT = "mmsoc-checkpoint-v1"


@dataclass(frozen=True)
class LoraSettings:
    """LoRA shape and where it goes: inside the language model only (``mmsoc.runners.finetune.lora_targets``),
    on the linear layers named ``target_modules`` (``lm_head`` included when named; ``attention``: the
    architecture's attention projections, whatever it calls them); ``mlp`` adds its MLP projections."""

    rank: int = 8
    alpha: int = 16
    dropout: float = 0.05
    target_modules: tuple[str, ...] = (ATTENTION,)
    mlp: bool = False

    def peft_config(self, targets: list[str]) -> LoraConfig:
        """peft's configuration over ``targets``, full module names (``lora_targets``)."""
        return LoraConfig(r=self.rank, lora_alpha=self.alpha, lora_dropout=self.dropout, target_modules=targets)


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
    """The newest checkpoint (each is renamed into place once complete) or None."""
    done = [path.parent for path in Path(out_dir, CHECKPOINTS).glob(f"step-*/{STATE_FILE}")]
    return max(done, key=lambda path: int(path.name.split("-")[1]), default=None)


def run_identity(
    lora: LoraSettings,
    settings: TrainSettings,
    items: Sequence[TrainItem],
    meta: dict | None = None,
    base_model: str | None = None,
    family: str | None = None,
) -> dict:
    """What must match for ``resume`` to continue a run (``config.json``): every setting that changes the
    adapter, flat so that a refusal names each field (``lora.rank``, ``train.learning_rate``, ``tasks``, ...).
    Without ``base_model`` and ``family`` it is the part that can be checked before the model is loaded."""
    pairs = [[item.request.task, item.request.id, item.request.prompt, item.target] for item in items]
    fingerprint = hashlib.sha256(json.dumps(pairs, ensure_ascii=False).encode()).hexdigest()[:16]
    train = {k: v for k, v in asdict(settings).items() if k != "save_every"}  # when to save changes no weight
    model = {"base_model": base_model, "family": family} if base_model is not None else {}
    identity = {
        **model,
        **(meta or {}),
        **{f"lora.{k}": v for k, v in asdict(lora).items()},
        **{f"train.{k}": v for k, v in train.items()},
        "items": len(items),
        "items_sha256": fingerprint,
    }
    return json.loads(json.dumps(identity))


def check_out_dir(out_dir: str | Path, resume: bool, identity: dict) -> None:
    """Refuse a folder that holds a run unless resuming it, a resume with a different ``identity``
    (``RunFolderError`` naming each field that differs) and a checkpoint to resume that carries pickles."""
    out_dir = Path(out_dir)
    taken = [name for name in (ADAPTER_WEIGHTS, TRAIN_LOG, CHECKPOINTS) if (out_dir / name).exists()]
    if taken and not resume:
        raise FileExistsError(f"{out_dir} already holds {', '.join(taken)}; resume it or choose a new folder")
    RunFolder(out_dir).check(identity)
    if resume and (start := latest_checkpoint(out_dir)) is not None:
        refuse_pickles(start)


def train_lora(
    model: Any,
    processor: Any,
    family: Family,
    items: Sequence[TrainItem],
    out_dir: str | Path,
    lora: LoraSettings = LoraSettings(),
    settings: TrainSettings = TrainSettings(),
    resume: bool = False,
    meta: dict | None = None,
    progress: bool = False,
    on_step: Callable[[int, float], None] | None = None,
    inputs: Any = None,
) -> TrainResult:
    """Fine-tune LoRA adapters on ``items`` and save them (peft format) to ``out_dir``.

    Writes ``config.json`` (the run's identity: resuming with other settings is refused, naming the
    fields), ``train_log.jsonl`` (loss per optimizer step), checkpoints every ``save_every`` steps
    under ``checkpoints/step-N`` and ``finetune_config.json``. ``on_step(step, loss)`` is called
    after each optimizer step. ``inputs`` (``mmsoc.models.inputs.ModelInputs``) gives each prompt and its
    processor inputs when requests carry more than images (video or audio), in the prompt format the
    evaluation uses; without it, the checkpoint's chat template (or the family's format) over the images.
    """
    if not items:
        raise ValueError("no training items")
    out_dir = Path(out_dir)
    micro = min(settings.micro_batch_size, settings.batch_size)
    world = process_state().num_processes
    accum = max(1, math.ceil(settings.batch_size / (micro * world)))
    loop = LoopSettings(settings.epochs, micro, accum, settings.max_grad_norm, settings.max_steps, settings.seed)
    base_model = getattr(model.config, "_name_or_path", "")
    targets = lora_targets(model, lora.target_modules, lora.mlp)  # a bad name is refused before the folder is taken
    identity = run_identity(lora, settings, items, meta, base_model, family)
    check_out_dir(out_dir, resume, identity)  # before anything is built
    folder = RunFolder(out_dir)
    accelerator = make_accelerator(mixed_precision=resolve_precision(settings.precision))
    with ExitStack() as stack:
        if accelerator.is_main_process:
            stack.enter_context(folder.lock())
            folder.claim(identity)
        config = {
            "base_model": base_model,
            "family": family,
            "lora": asdict(lora),
            "train": asdict(settings),
            "processes": world,
            "gradient_accumulation": accum,
            "effective_batch_size": micro * world * accum,
            "total_steps": loop.total_steps(len(items), world),
            "items": len(items),
            **(meta or {}),
        }
        return _train(
            accelerator,
            model,
            processor,
            family,
            items,
            out_dir,
            lora.peft_config(targets),
            settings,
            loop,
            resume,
            config,
            progress,
            on_step,
            inputs,
        )


def _train(
    accelerator: Accelerator,
    model: Any,
    processor: Any,
    family: Family,
    items: Sequence[TrainItem],
    out_dir: Path,
    peft_config: LoraConfig,
    settings: TrainSettings,
    loop: LoopSettings,
    resume: bool,
    config: dict,
    progress: bool,
    on_step: Callable[[int, float], None] | None,
    inputs: Any = None,
) -> TrainResult:
    set_seed(settings.seed)  # every generator a checkpoint records (Python, NumPy, torch): same seed, same bytes
    model = get_peft_model(model, peft_config)
    model.train()
    optimizer = torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad],
        lr=settings.learning_rate,
        weight_decay=settings.weight_decay,
    )
    total = config["total_steps"]
    scheduler = get_cosine_schedule_with_warmup(optimizer, math.ceil(settings.warmup_ratio * total), total)
    model, optimizer = accelerator.prepare(model, optimizer)
    if inputs is not None:
        collator = TrainCollator(
            processor,
            lambda r: inputs.prompts([r])[0],
            settings.max_target_tokens,
            lambda r: inputs.prepare([r], "right"),
        )
    else:
        collator = TrainCollator(
            processor, lambda r: format_prompt(family, processor, r.parts), settings.max_target_tokens
        )

    step, start = 0, None
    if resume and (start := latest_checkpoint(out_dir)) is not None:
        step = _load_checkpoint(start, accelerator, model, optimizer, scheduler)
    losses = _restart_log(out_dir, step, accelerator)
    bar = tqdm(total=total, initial=step, desc="fine-tuning", disable=not (progress and accelerator.is_main_process))
    log = JsonlAppender(out_dir / TRAIN_LOG) if accelerator.is_main_process else None

    def after_step(state: LoopState) -> None:
        losses.append(state.loss)
        if log is not None:  # standard JSON: a diverged (NaN) loss is logged as null
            loss = state.loss if math.isfinite(state.loss) else None
            log.append({"step": state.step, "epoch": state.epoch, "loss": loss, "lr": state.lr})
        bar.update(1)
        if settings.save_every and state.step % settings.save_every == 0:
            _save_checkpoint(accelerator, model, optimizer, scheduler, out_dir, state.step)
        if on_step is not None:
            on_step(state.step, state.loss)

    state = train_loop(
        model,
        optimizer,
        items,
        collator,
        lambda m, batch: m(**batch).loss,
        loop,
        accelerator=accelerator,
        scheduler=scheduler,
        start_step=step,
        on_step=after_step,
    )
    bar.close()
    if log is not None:
        log.close()
    accelerator.wait_for_everyone()
    if accelerator.is_main_process:
        accelerator.unwrap_model(model).save_pretrained(out_dir)
        write_json(out_dir / CONFIG_FILE, {**config, "steps": state.step})
    accelerator.wait_for_everyone()
    return TrainResult(out_dir, state.step, losses, resumed_from=int(start.name.split("-")[1]) if start else 0)


def _restart_log(out_dir: Path, step: int, accelerator: Accelerator) -> list[float]:
    """Losses logged up to ``step``; later rows (from a run killed after its last checkpoint) are dropped."""
    path = out_dir / TRAIN_LOG
    rows = [row for _, row in read_jsonl(path) if row["step"] <= step] if path.exists() and step else []
    if accelerator.is_main_process:
        out_dir.mkdir(parents=True, exist_ok=True)
        write_jsonl(path, rows)
    accelerator.wait_for_everyone()
    return [math.nan if row["loss"] is None else row["loss"] for row in rows]


def _save_checkpoint(
    accelerator: Accelerator, model: Any, optimizer: Any, scheduler: Any, out_dir: Path, step: int
) -> None:
    """Adapter, optimizer, scheduler and every process's RNG state, built aside and renamed into place."""
    final = out_dir / CHECKPOINTS / f"step-{step:06d}"
    build = final.with_name(f".{final.name}.partial")
    if accelerator.is_main_process:
        shutil.rmtree(build, ignore_errors=True)
        build.mkdir(parents=True)
    accelerator.wait_for_everyone()
    if accelerator.is_main_process:
        accelerator.unwrap_model(model).save_pretrained(build)
        save_state(build, "optimizer", optimizer.state_dict())
        save_state(build, "scheduler", scheduler.state_dict())
    save_rng(build, accelerator.process_index)
    accelerator.wait_for_everyone()
    if accelerator.is_main_process:
        write_json(build / STATE_FILE, {"step": step, "format": CHECKPOINT_FORMAT})
        shutil.rmtree(final, ignore_errors=True)
        os.replace(build, final)
    accelerator.wait_for_everyone()


def _load_checkpoint(folder: Path, accelerator: Accelerator, model: Any, optimizer: Any, scheduler: Any) -> int:
    """Restore what ``_save_checkpoint`` wrote; a folder carrying pickles is refused before anything is read."""
    refuse_pickles(folder)
    state = json.loads((folder / STATE_FILE).read_text())
    if state.get("format") != CHECKPOINT_FORMAT:
        raise UsageError(f"{folder} is not a {CHECKPOINT_FORMAT} checkpoint; train into a new --out")
    set_peft_model_state_dict(accelerator.unwrap_model(model), load_file(str(folder / ADAPTER_WEIGHTS)))
    optimizer.load_state_dict(load_state(folder, "optimizer"))
    scheduler.load_state_dict(load_state(folder, "scheduler"))
    load_rng(folder, accelerator.process_index)
    return int(state["step"])
