"""Where the tests find the real Social-IQ 2.0 training questions: ``../shared`` beside the repository.

Tests on them are marked ``shared`` and skip cleanly without the file (``needs_real_data`` on a test,
``REAL_DATA_MARKS`` on a ``pytest.param``); no test swaps in other data when it is absent.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

REAL_SIQ2 = Path(__file__).resolve().parents[2] / "shared" / "data" / "siq2" / "qa_train.jsonl"

REAL_DATA_MARKS = [
    pytest.mark.shared,
    pytest.mark.skipif(not REAL_SIQ2.exists(), reason="real Social-IQ 2.0 data not present"),
]


def needs_real_data(test):
    """Mark a test that reads ``REAL_SIQ2``."""
    for mark in REAL_DATA_MARKS:
        test = mark(test)
    return test


def split_by_video(items, eval_share: int = 5):
    """Deterministic split by video: one video in ``eval_share`` goes to eval."""
    train = [i for i in items if zlib.crc32(i.video.encode()) % eval_share]
    held = [i for i in items if not zlib.crc32(i.video.encode()) % eval_share]
    return train, held
