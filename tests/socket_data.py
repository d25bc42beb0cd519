"""Where the tests find SocKET's published zero-shot predictions and scores: ``../shared`` beside the repository.

Tests on them are marked ``shared`` and skip cleanly without the files (``needs_socket_files``)."""

from __future__ import annotations

from pathlib import Path

import pytest

ZEROSHOT = Path(__file__).resolve().parents[2] / "shared" / "data" / "socket" / "experiments" / "zeroshot"
PREDICTIONS = ZEROSHOT / "predictions_sockette"
ALL_SCORES = ZEROSHOT / "all_scores.df.tsv"
PROMPTS = ZEROSHOT / "socket_prompts.csv"


def needs_socket_files(test):
    """Mark a test that reads the published SocKET files."""
    test = pytest.mark.skipif(not ALL_SCORES.exists(), reason="SocKET's published predictions not present")(test)
    return pytest.mark.shared(test)
