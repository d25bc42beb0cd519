"""Where mmsoc keeps what it generates or computes once: the sample data, hub images, encoder features."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """``$MMSOC_CACHE`` when set, else ``~/.cache/mmsoc``."""
    return Path(os.environ.get("MMSOC_CACHE") or Path.home() / ".cache" / "mmsoc")
