"""Loading heavy libraries and weights, and ending the process, without the cyclic garbage collector in the way."""

from __future__ import annotations

import atexit
import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def loading() -> Iterator[None]:
    """Pause cyclic garbage collection while torch, transformers and a model load.

    Importing torch and transformers creates hundreds of thousands of long-lived objects and almost no
    garbage, and each automatic collection meanwhile walks all of them again (about a CPU second of a
    one-item ``mmsoc eval``). Afterwards what loading made joins the oldest generation without being
    walked, and its garbage is still collected. Nested, or with collection already off, it changes
    nothing."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if not gc.get_freeze_count():  # (objects someone froze stay frozen)
            gc.freeze()  # what loading made goes straight to the oldest generation, untraversed;
            gc.unfreeze()  # there only a full collection visits it, and can still free it
        gc.enable()


def quick_exit() -> None:
    """Have this process's shutdown skip the objects still alive when it ends (calling it again changes nothing).

    At exit the interpreter collects garbage over everything torch, transformers and a model left (about
    a CPU second of a one-item run) only to free memory the system takes back anyway. An exit handler
    moves them to the permanent generation first (``gc.freeze``), where collections do not look. Other
    exit handlers still run; run folders are written, flushed and closed before a command returns."""
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
