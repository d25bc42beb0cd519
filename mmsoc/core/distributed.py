"""This process's place among those ``accelerate launch`` (or ``torchrun``) started.

Every PartialState and Accelerator in mmsoc comes from here. On a machine without an accelerator a
plain ``PartialState()`` under ``accelerate launch --multi_gpu`` sees one process in each process;
asking for the CPU makes the processes join one gloo group, so work is really shared.
"""

from __future__ import annotations

from typing import Any

import torch
from accelerate import Accelerator, PartialState


def cpu_only() -> bool:
    """Whether this machine has no accelerator (CUDA, MPS, XPU, ...) for torch to use."""
    return not torch.accelerator.is_available()


def process_state() -> PartialState:
    """The shared process state (rank, world size, device), joining the process group if launched."""
    return PartialState(cpu=cpu_only())


def make_accelerator(**kwargs: Any) -> Accelerator:
    """An ``Accelerator`` over the same process group as ``process_state()``."""
    return Accelerator(cpu=cpu_only(), **kwargs)


def resolve_device(device: str = "auto") -> torch.device:
    """``auto`` -> this process's accelerator (one per process under ``accelerate launch``) or the CPU."""
    return process_state().device if device == "auto" else torch.device(device)
