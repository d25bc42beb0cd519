"""How many threads a run's tensor math may use (torch intra-op threads), on a machine others share.

torch's own default is one thread per physical core of the whole machine, whatever else runs there,
and each process of an ``accelerate launch`` takes them all again. :func:`default_threads` takes the
CPUs this process may run on (its affinity: taskset, cpuset), shares them among the processes of the
run on this machine, and stops at :data:`MAX_DEFAULT_THREADS`: decoding a batch step by step gains
little past that, and the rest of the machine stays free for others. ``OMP_NUM_THREADS``, when set,
is the user's choice and wins.
"""

from __future__ import annotations

import os
import sys

from mmsoc.core.distributed import local_processes

MAX_DEFAULT_THREADS = 8


def default_threads() -> int:
    """``OMP_NUM_THREADS`` if set, else min(8, usable CPUs / processes of this run on this machine), at least 1."""
    given = os.environ.get("OMP_NUM_THREADS", "")
    if given.isdigit() and int(given) > 0:
        return int(given)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(MAX_DEFAULT_THREADS, cpus // local_processes()))


def use_threads(threads: int) -> None:
    """torch intra-op threads = ``threads``: set now if torch is loaded; else torch (and any OpenMP or MKL
    library) starts with them when it loads (``OMP_NUM_THREADS``, ``MKL_NUM_THREADS``), without
    importing torch here for a model that may never need it."""
    if threads < 1:
        raise ValueError(f"threads must be >= 1, got {threads}")
    torch = sys.modules.get("torch")
    if torch is None:
        os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = str(threads)
    elif torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
