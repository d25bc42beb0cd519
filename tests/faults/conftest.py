"""Fixtures of the fault-injection suite: data and tiny models built once, and places that fail.

Failing places and what really fails as root (root ignores permission bits, so ``chmod`` alone
makes nothing read-only for it):

* read-only folder: ``chmod 0555`` for other users; as root a read-only bind mount of the folder
  (``mount --bind`` + ``remount,ro``: writes fail with EROFS); the test is skipped where neither works.
* full folder: a 64 KiB tmpfs mounted on it and filled up (writes fail with ENOSPC); skipped where
  ``mount`` is not allowed.
* unreadable input: ``chmod 0000`` for other users; as root a symlink to ``/proc/self/mem``, which
  opens but fails every read at offset 0 with EIO.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = os.geteuid() == 0


def _mount(*args: str) -> bool:
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


def _umount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


@pytest.fixture
def readonly_dir(tmp_path):
    """An existing, empty folder no command can write into (EROFS as root, EACCES otherwise)."""
    folder = tmp_path / "readonly"
    folder.mkdir()
    if not ROOT:
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return
    if not (_mount("--bind", str(folder), str(folder)) and _mount("-o", "remount,ro,bind", str(folder))):
        _umount(folder)
        pytest.skip("no way to make a read-only folder for root here (mount --bind not allowed)")
    try:
        yield folder
    finally:
        _umount(folder)


@pytest.fixture
def full_dir(tmp_path):
    """An existing folder on a filesystem with no space left (ENOSPC on the first byte written)."""
    folder = tmp_path / "full"
    folder.mkdir()
    if not _mount("-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)):
        pytest.skip("cannot mount a small tmpfs here, so no full filesystem to write to")
    try:
        filler = folder / "filler"
        with open(filler, "wb") as handle:
            try:
                while True:
                    handle.write(b"\0" * 4096)
                    handle.flush()
            except OSError:
                pass
        (folder / "data").mkdir()
        yield folder / "data"
    finally:
        _umount(folder)


def make_unreadable(path: Path, text: str = "") -> Path:
    """``path`` as a file that exists but cannot be read (see the module docstring)."""
    if ROOT:
        path.symlink_to("/proc/self/mem")
    else:
        path.write_text(text)
        path.chmod(0)
    return path


@pytest.fixture(scope="session")
def scratch(tmp_path_factory) -> Path:
    """Working folder and mmsoc cache of the commands (nothing read from the user's own cache)."""
    return tmp_path_factory.mktemp("faults")


@pytest.fixture(scope="session")
def cache(scratch) -> Path:
    return scratch / "mmsoc-cache"


@pytest.fixture(scope="session")
def siq(tmp_path_factory) -> Path:
    """The embedded Social-IQ 2.0 sample with media (40 train and 16 val videos)."""
    from desiq.sample import write_sample

    return write_sample(tmp_path_factory.mktemp("siq") / "sample")


@pytest.fixture(scope="session")
def small_siq(siq, tmp_path_factory) -> Path:
    """A Social-IQ folder of a few videos of the sample: qa/qa_{train,val}.json and the media."""
    folder = tmp_path_factory.mktemp("small_siq")
    for split, videos in (("train", 6), ("val", 3)):
        rows = [json.loads(line) for line in (siq / "qa" / f"qa_{split}.json").read_text().splitlines()]
        keep = sorted({r["vid_name"] for r in rows})[:videos]
        (folder / "qa").mkdir(exist_ok=True)
        (folder / "qa" / f"qa_{split}.json").write_text("".join(json.dumps(r) + "\n" for r in rows
                                                                if r["vid_name"] in keep))
    for name in ("video", "audio", "transcript"):
        (folder / name).symlink_to(siq / name, target_is_directory=True)
    return folder


@pytest.fixture(scope="session")
def tiny_t5(siq, tmp_path_factory) -> Path:
    from media_fixtures import build_tiny_t5

    rows = [json.loads(line) for split in ("train", "val")
            for line in (siq / "qa" / f"qa_{split}.json").read_text().splitlines()]
    corpus = [f"question: {r['q']} answer: " + " ".join(r[f"a{i}"] for i in range(4)) for r in rows]
    return build_tiny_t5(tmp_path_factory.mktemp("t5") / "t5", corpus)


@pytest.fixture(scope="session")
def tiny_clip(tmp_path_factory) -> Path:
    from media_fixtures import build_tiny_open_clip

    return build_tiny_open_clip(tmp_path_factory.mktemp("open_clip") / "oc")
