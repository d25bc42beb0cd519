"""Loading heavy libraries and weights without the cyclic garbage collector in the way."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def loading() -> Iterator[None]:
    """Pause cyclic garbage collection while torch, transformers and a model load.

    Importing torch and transformers creates hundreds of thousands of long-lived objects and almost no
    garbage, and each automatic collection meanwhile walks all of them again: pausing it saves about a
    tenth of a one-item run's CPU time. What garbage loading leaves is collected once it ends. Nested,
    or with collection already off, it changes nothing."""
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
