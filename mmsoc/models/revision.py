"""``--revision``: a hub model pinned to one branch, tag or commit, as the folder of its hub-cache snapshot.

Every later step (the run's identity from the model's files, loading, provenance.json) then reads that
one snapshot; a snapshot already in the hub cache is found offline."""

from __future__ import annotations

from pathlib import Path

from mmsoc.core.io import UsageError
from mmsoc.media.weights import hub_fetch, loading

PINNABLE = ("hf", "lm")
"""Backends whose argument is a hub id (a bare --model is hf's)."""


def pin_revision(model: str, revision: str | None) -> str:
    """``model`` (``hf:ID``, ``lm:ID`` or a bare ID) with ID replaced by the snapshot folder of ``revision``."""
    if revision is None:
        return model
    backend, sep, repo = model.partition(":")
    if not sep:
        backend, repo = "", model
    elif backend not in PINNABLE:
        raise UsageError(f"--revision pins a hub model of the hf or lm backend, not --model {model}")
    if Path(repo).exists():
        raise UsageError(f"--revision pins a hub model; {repo} is a local folder (its fingerprint is recorded)")
    from huggingface_hub import snapshot_download

    with loading("model", repo, hub_fetch(repo), f"pass a folder holding revision {revision} as --model"):
        folder = snapshot_download(repo, revision=revision)
    return f"{backend}:{folder}" if backend else folder
