"""``--batch-size auto``: the largest batch that fits in memory, found by halving on out-of-memory.

As lm-evaluation-harness does, an automatic batch starts at :data:`AUTO_START`; a call that runs out
of accelerator memory (``torch.OutOfMemoryError``) has the cache freed and the same items retried in
halves, and the size that worked is kept for the rest of the run. A fixed size is never changed. Since
a request's answer never depends on its batch, the size changes only speed, never results.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from mmsoc.core.io import UsageError

AUTO = "auto"
AUTO_START = 64
"""Where an automatic batch size starts (lm-evaluation-harness's default largest batch)."""

T = TypeVar("T")
R = TypeVar("R")


def parse_batch_size(value: str | int) -> int | str:
    """``auto`` or a positive number of requests per call (``--batch-size``)."""
    if value == AUTO:
        return AUTO
    try:
        size = int(value)
    except ValueError:
        raise UsageError(f"--batch-size {value!r}: give a positive number or auto") from None
    if size < 1:
        raise UsageError(f"--batch-size {value!r}: give a positive number or auto")
    return size


def is_out_of_memory(err: BaseException) -> bool:
    """Whether ``err`` is torch's out-of-memory error (never, when torch was not even imported)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(err, torch.OutOfMemoryError)


def free_accelerator_memory() -> None:
    """Give what the failed call held back to the accelerator (nothing to do without torch or CUDA)."""
    gc.collect()
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        torch.cuda.empty_cache()


class BatchSizer:
    """Batches of a fixed size, or of the largest size that fits (``auto``)."""

    def __init__(self, size: int | str = AUTO):
        parsed = parse_batch_size(size)
        self.auto = parsed == AUTO
        self.size = AUTO_START if isinstance(parsed, str) else parsed
        """Requests per call now: the fixed size, or the largest an automatic size has found to fit."""

    def batches(self, items: Sequence[T]) -> Iterator[Sequence[T]]:
        """Consecutive slices of ``items``, each as long as the size is when it is drawn."""
        start = 0
        while start < len(items):
            batch = items[start : start + self.size]
            start += len(batch)
            yield batch

    def run(self, batch: Sequence[T], call: Callable[[Sequence[T]], list[R]]) -> list[R]:
        """``call`` over ``batch`` (passed as itself when it fits), or over consecutive chunks of the
        current size; with ``auto``, a chunk that runs out of memory is retried at half the size."""
        out: list[R] = []
        start = 0
        while start < len(batch):
            chunk = batch if start == 0 and len(batch) <= self.size else batch[start : start + self.size]
            result = self._attempt(chunk, call)
            if result is None:
                free_accelerator_memory()
                self._halve(len(chunk))
                continue
            out += result
            start += len(chunk)
        return out

    def _halve(self, failed: int) -> None:
        """Halve the size until it is below the ``failed`` call's (64, 32, 16, ...; at least 1)."""
        while self.size >= failed and self.size > 1:
            self.size //= 2

    def _attempt(self, chunk: Sequence[T], call: Callable[[Sequence[T]], list[R]]) -> list[R] | None:
        """``call(chunk)``, or None when an automatic size ran out of memory (one request alone still raises)."""
        try:
            return call(chunk)
        except Exception as err:
            if self.auto and len(chunk) > 1 and is_out_of_memory(err):
                return None  # (the error and the tensors it holds are released on return)
            raise
