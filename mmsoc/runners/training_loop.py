"""The one training loop of mmsoc, and training state that loads without running code.

Used by LoRA fine-tuning (``runners/finetune/lora_training.py``) and the text-baseline classifier
(``models/text_classifier.py``). A trainer supplies its items, how to batch them and how to compute
the loss; the loop does epochs, seeded order, micro-batches with gradient accumulation, clipping,
an optional LR scheduler, callbacks and resuming::

    settings = LoopSettings(epochs=20, micro_batch_size=8, accumulation=1, max_grad_norm=1.0, seed=0)
    model, optimizer = accelerator.prepare(model, optimizer)   # or accelerator=None, device=...: one process
    stopper = EarlyStopping(patience=3)

    def dev_check(state: LoopState) -> None:                  # after each complete epoch, on every process
        if stopper.update(dev_accuracy(accelerator.unwrap_model(model)), state):
            best = copy.deepcopy(accelerator.unwrap_model(model).state_dict())
        # stopper.update sets state.stop after `patience` epochs without a better score

    state = train_loop(model, optimizer, items, collate, lambda m, b: m(**b).loss, settings,
                       accelerator=accelerator, on_epoch=dev_check)

- ``items``: any sequence; ``collate(list of items) -> batch``; the loop moves the batch to the
  device (accelerate's prepared loader does it, or ``device`` without an accelerator).
  ``loss_of(model, batch)`` returns a scalar. ``model.train()`` is called at the start of every
  epoch, so an ``on_epoch`` that evaluates may leave the model in eval mode.
- Order: epoch ``e`` sees ``seeded_order(items, seed, e)`` unless ``order(e)`` is given (make it a
  function of ``e`` alone for resuming to work); no draw touches the global RNG, so dropout draws do
  not depend on the data order.
- With an accelerator (built with ``gradient_accumulation_steps=1``; accumulation is the loop's),
  each process takes every ``num_processes``-th micro-batch (accelerate's sharding) and gradients
  are synchronised once per optimizer step. Without one, everything runs in this process (safe
  inside another multi-process command, e.g. one evaluation process fitting a baseline).
- An optimizer step adds the gradients of ``accumulation`` micro-batches, each loss divided by
  ``accumulation`` (accelerate's convention: the last, shorter group of an epoch still steps, with a
  proportionally smaller gradient), clips to ``max_grad_norm`` (None: no clipping), steps the
  optimizer, zeroes the gradients, then steps the scheduler (once per optimizer step).
- ``on_step(state)`` runs after every optimizer step (``state.step``, ``epoch``, ``loss``: mean over
  the step's micro-batches and processes, ``lr``: the rate the step used); ``on_epoch(state)`` after
  every complete epoch. Either may set ``state.stop = True``; the loop also ends at ``max_steps``.
- Resume: restore model, optimizer, scheduler and RNG (``load_state``/``load_rng`` below), then pass
  ``start_step``; the loop skips the micro-batches of the steps already done in that epoch.

Checkpoint files never hold pickles: ``save_state``/``load_state`` keep a state dict's tensors in
``NAME.safetensors`` and the rest in ``NAME.json``; ``save_rng``/``load_rng`` do the same for the
random generators of one process; ``refuse_pickles`` rejects a folder carrying pickled files.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Iterable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import torch

from mmsoc.core.io import UsageError, write_json

Item = TypeVar("Item")
Batch = Any


@dataclass(frozen=True)
class LoopSettings:
    """How the loop walks the data. ``micro_batch_size`` is per process and forward pass."""

    epochs: int = 1
    micro_batch_size: int = 8
    accumulation: int = 1
    max_grad_norm: float | None = 1.0
    max_steps: int | None = None
    seed: int = 0

    def steps_per_epoch(self, n_items: int, processes: int = 1) -> int:
        return math.ceil(math.ceil(n_items / (self.micro_batch_size * processes)) / self.accumulation)

    def total_steps(self, n_items: int, processes: int = 1) -> int:
        total = self.steps_per_epoch(n_items, processes) * self.epochs
        return min(total, self.max_steps) if self.max_steps else total


@dataclass
class LoopState:
    """Where training is; callbacks read it and may set ``stop``."""

    step: int = 0
    epoch: int = 0
    loss: float = math.nan
    lr: float = math.nan
    stop: bool = False


@dataclass
class EarlyStopping:
    """Stop after ``patience`` epochs in a row without a better dev score (higher is better)."""

    patience: int
    best: float = -math.inf
    best_epoch: int = -1
    stale: int = 0

    def update(self, score: float, state: LoopState) -> bool:
        """Record this epoch's score; True when it is the best so far. Sets ``state.stop`` when patience runs out."""
        if score > self.best:
            self.best, self.best_epoch, self.stale = score, state.epoch, 0
            return True
        self.stale += 1
        state.stop = state.stop or self.stale >= self.patience
        return False


def seeded_order(items: Sequence[Item], seed: int, epoch: int) -> list[Item]:
    """A seeded shuffle per epoch: the same seed gives the same batches on any machine."""
    order = torch.randperm(len(items), generator=torch.Generator().manual_seed(seed * 1000 + epoch))
    return [items[i] for i in order.tolist()]


def _micro_batches(
    items: Sequence[Item],
    collate: Callable[[list[Item]], Batch],
    size: int,
    epoch: int,
    skip: int,
    accelerator: Any,
    device: torch.device | str | None,
) -> tuple[int, Iterable[Batch]]:
    """(micro-batches of the epoch for this process, those from position ``skip`` on, on the device)."""
    from accelerate.utils import send_to_device
    from torch.utils.data import DataLoader

    # The loader's own generator keeps starting an epoch from drawing on the global RNG (dropout).
    loader: Any = DataLoader(
        items,  # type: ignore[arg-type]  # any sequence
        batch_size=size,
        collate_fn=collate,
        generator=torch.Generator().manual_seed(epoch),
    )
    if accelerator is not None:
        loader = accelerator.prepare(loader)
        return len(loader), accelerator.skip_first_batches(loader, skip) if skip else loader
    rest = islice(loader, skip, None)
    return len(loader), (send_to_device(b, device) for b in rest) if device is not None else rest


def train_loop(
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    items: Sequence[Item],
    collate: Callable[[list[Item]], Batch],
    loss_of: Callable[[torch.nn.Module, Batch], torch.Tensor],
    settings: LoopSettings,
    *,
    accelerator: Any = None,
    device: torch.device | str | None = None,
    scheduler: Any = None,
    start_step: int = 0,
    order: Callable[[int], Sequence[Item]] | None = None,
    on_step: Callable[[LoopState], None] | None = None,
    on_epoch: Callable[[LoopState], None] | None = None,
) -> LoopState:
    """Train ``model`` over ``items`` (see the module docstring); returns the final state."""
    if not items:
        raise ValueError("no training items")
    if accelerator is not None and accelerator.gradient_accumulation_steps != 1:
        raise ValueError("give gradient accumulation in LoopSettings.accumulation, not to the Accelerator")
    world = accelerator.num_processes if accelerator is not None else 1
    per_epoch = settings.steps_per_epoch(len(items), world)
    total = settings.total_steps(len(items), world)
    state = LoopState(step=start_step)
    accum = settings.accumulation
    backward = accelerator.backward if accelerator is not None else torch.Tensor.backward
    clip = accelerator.clip_grad_norm_ if accelerator is not None else torch.nn.utils.clip_grad_norm_
    for epoch in range(start_step // per_epoch, settings.epochs):
        if state.step >= total or state.stop:
            break
        state.epoch = epoch
        model.train()
        ordered = order(epoch) if order is not None else seeded_order(items, settings.seed, epoch)
        skip = (state.step - epoch * per_epoch) * accum
        length, batches = _micro_batches(ordered, collate, settings.micro_batch_size, epoch, skip, accelerator, device)
        window: list[torch.Tensor] = []
        for index, batch in enumerate(batches, start=skip):
            sync = (index + 1) % accum == 0 or index + 1 == length
            with nullcontext() if sync or accelerator is None else accelerator.no_sync(model):
                loss = loss_of(model, batch)
                backward(loss / accum if accum > 1 else loss)
            window.append(loss.detach())
            if not sync:
                continue
            if settings.max_grad_norm is not None:
                clip(model.parameters(), settings.max_grad_norm)
            optimizer.step()
            optimizer.zero_grad()
            state.lr = optimizer.param_groups[0]["lr"]
            if scheduler is not None:
                scheduler.step()
            state.step += 1
            mean = torch.stack(window).mean()
            state.loss = (accelerator.gather(mean[None]).mean() if accelerator is not None else mean).item()
            window.clear()
            if on_step is not None:
                on_step(state)
            if state.step >= total or state.stop:
                break
        else:
            if on_epoch is not None:
                on_epoch(state)
    return state


# --- training state without pickles ---------------------------------------------------------


class UnsafeCheckpointError(UsageError):
    """A checkpoint folder carries files that only unpickling could load."""


PICKLE_SUFFIXES = (".pkl", ".pickle", ".bin", ".pt", ".pth", ".ckpt", ".joblib")
_MAGIC = (b"PK\x03\x04", *(bytes([0x80, protocol]) for protocol in range(2, 6)))  # torch zip, pickle 2-5


def refuse_pickles(folder: str | Path) -> None:
    """Raise UnsafeCheckpointError if ``folder`` holds a pickle (by name or by its first bytes); nothing is opened
    beyond reading those bytes."""
    found = []
    for path in sorted(p for p in Path(folder).rglob("*") if p.is_file()):
        with open(path, "rb") as handle:
            head = handle.read(4)
        if path.suffix.lower() in PICKLE_SUFFIXES or head.startswith(_MAGIC):
            found.append(str(path.relative_to(folder)))
    if found:
        raise UnsafeCheckpointError(
            f"{folder} holds files that would have to be unpickled ({', '.join(found)}); "
            "mmsoc never loads a pickle from a checkpoint: delete this checkpoint folder "
            "to resume from an earlier one, or train into a new --out"
        )


def _encode(value: Any, tensors: dict[str, torch.Tensor], path: str) -> Any:
    """JSON for ``value`` with each tensor stored in ``tensors`` under its path; containers are tagged so that
    non-string keys and tuples come back as they were."""
    if isinstance(value, torch.Tensor):
        key = path if path not in tensors else f"{path}#{len(tensors)}"
        tensors[key] = value.detach().cpu().contiguous()
        return {"tensor": key}
    if isinstance(value, dict):
        if all(isinstance(key, str) for key in value):
            return {"dict": {key: _encode(v, tensors, f"{path}.{key}") for key, v in value.items()}}
        return {"items": [[key, _encode(v, tensors, f"{path}.{key}")] for key, v in value.items()]}
    if isinstance(value, (list, tuple)):
        tag = "tuple" if isinstance(value, tuple) else "list"
        return {tag: [_encode(v, tensors, f"{path}.{i}") for i, v in enumerate(value)]}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"{path}: cannot store a {type(value).__name__} without pickling it")


def _decode(value: Any, tensors: dict[str, torch.Tensor]) -> Any:
    if not isinstance(value, dict):
        return value
    ((tag, inner),) = value.items()
    if tag == "tensor":
        return tensors[inner]
    if tag == "dict":
        return {key: _decode(v, tensors) for key, v in inner.items()}
    if tag == "items":
        return {key: _decode(v, tensors) for key, v in inner}
    items = [_decode(v, tensors) for v in inner]
    return tuple(items) if tag == "tuple" else items


def save_state(folder: str | Path, name: str, state: dict[str, Any]) -> None:
    """Write a state dict (an optimizer's, a scheduler's, ...) as ``NAME.safetensors`` + ``NAME.json``."""
    from safetensors.torch import save_file

    tensors: dict[str, torch.Tensor] = {}
    tree = _encode(state, tensors, name)
    save_file(tensors, str(Path(folder, f"{name}.safetensors")))
    write_json(Path(folder, f"{name}.json"), tree)


def load_state(folder: str | Path, name: str) -> Any:
    """The state dict ``save_state`` wrote (tensors on the CPU)."""
    from safetensors.torch import load_file

    tree = json.loads(Path(folder, f"{name}.json").read_text(encoding="utf-8"))
    return _decode(tree, load_file(str(Path(folder, f"{name}.safetensors"))))


def save_rng(folder: str | Path, rank: int = 0) -> None:
    """This process's random generators (Python, NumPy, torch CPU and CUDA) as ``rng.rank<r>.*``."""
    cuda = list(torch.cuda.get_rng_state_all()) if torch.cuda.is_available() else []
    numpy: tuple[Any, ...] = tuple(np.random.get_state())
    save_state(
        folder,
        f"rng.rank{rank}",
        {
            "python": random.getstate(),
            "torch": torch.get_rng_state(),
            "cuda": cuda,
            "numpy": [numpy[0], numpy[1].tolist(), *map(_scalar, numpy[2:])],
        },
    )


def load_rng(folder: str | Path, rank: int = 0) -> None:
    """Restore what ``save_rng`` wrote for ``rank``."""
    if not Path(folder, f"rng.rank{rank}.json").is_file():
        raise UsageError(
            f"{folder} has no random state for process {rank}; resume with as many processes as the run that wrote it"
        )
    state = load_state(folder, f"rng.rank{rank}")
    random.setstate(state["python"])
    numpy = state["numpy"]
    np.random.set_state((numpy[0], np.array(numpy[1], dtype=np.uint32), *numpy[2:]))
    torch.set_rng_state(state["torch"])
    if state["cuda"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"][: torch.cuda.device_count()])


def _scalar(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value
