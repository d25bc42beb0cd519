"""This process's place among those ``accelerate launch`` (or ``torchrun``) started.

Every PartialState and Accelerator in mmsoc comes from here. On a machine without an accelerator a
plain ``PartialState()`` under ``accelerate launch --multi_gpu`` sees one process in each process;
asking for the CPU makes the processes join one gloo group, so work is really shared.

torch and accelerate are imported only when needed: :func:`run_state` answers a process that no
launcher started without them, so a run whose model needs no torch never loads it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch
    from accelerate import Accelerator, PartialState

WORLD_SIZE_VARIABLES = ("WORLD_SIZE", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MV2_COMM_WORLD_SIZE")
"""Where launchers (torchrun / accelerate, MPI) put the number of processes, as accelerate reads them."""


def launched() -> bool:
    """Whether a launcher started this process as one of a group (accelerate's own test for it)."""
    return os.environ.get("LOCAL_RANK") is not None or any(
        int(os.environ.get(name) or 1) > 1 for name in WORLD_SIZE_VARIABLES
    )


def local_processes() -> int:
    """How many processes of this run share this machine (1 without a launcher)."""
    return max(1, int(os.environ.get("LOCAL_WORLD_SIZE") or 1)) if launched() else 1


@dataclass(frozen=True)
class SingleProcess:
    """The process state of a process no launcher started: rank 0 of 1."""

    process_index: int = 0
    num_processes: int = 1
    is_main_process: bool = True

    def wait_for_everyone(self) -> None:
        """Nothing to wait for."""


def cpu_only() -> bool:
    """Whether this machine has no accelerator (CUDA, MPS, XPU, ...) for torch to use."""
    import torch

    return not torch.accelerator.is_available()


def process_state() -> PartialState:
    """The shared process state (rank, world size, device), joining the process group if launched."""
    from accelerate import PartialState

    return PartialState(cpu=cpu_only())


def run_state() -> PartialState | SingleProcess:
    """:func:`process_state` under a launcher, else :class:`SingleProcess` (importing neither torch nor accelerate)."""
    return process_state() if launched() else SingleProcess()


def make_accelerator(**kwargs: Any) -> Accelerator:
    """An ``Accelerator`` over the same process group as ``process_state()``."""
    from accelerate import Accelerator

    return Accelerator(cpu=cpu_only(), **kwargs)


def resolve_device(device: str = "auto") -> torch.device:
    """``auto`` -> this process's accelerator (one per process under ``accelerate launch``) or the CPU."""
    import torch

    if device != "auto":
        return torch.device(device)
    if launched():
        return process_state().device
    return torch.accelerator.current_accelerator(check_available=True) or torch.device("cpu")  # as PartialState()
