"""Fixtures of the fault-injection suite: data and tiny models built once, and places that fail
(``places.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .harness import FINETUNE, run
from .places import no_space, read_only


@pytest.fixture
def readonly_dir(tmp_path):
    """An existing, empty folder no command can write into (EROFS as root, EACCES otherwise)."""
    folder = tmp_path / "readonly"
    folder.mkdir()
    with read_only(folder):
        yield folder


@pytest.fixture
def full_dir(tmp_path):
    """An existing, empty folder on a filesystem with no space left."""
    with no_space(tmp_path / "full") as folder:
        yield folder


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
        (folder / "qa" / f"qa_{split}.json").write_text(
            "".join(json.dumps(r) + "\n" for r in rows if r["vid_name"] in keep)
        )
    for name in ("video", "audio", "transcript"):
        (folder / name).symlink_to(siq / name, target_is_directory=True)
    return folder


@pytest.fixture(scope="session")
def tiny_t5(siq, tmp_path_factory) -> Path:
    from media_fixtures import build_tiny_t5

    rows = [
        json.loads(line)
        for split in ("train", "val")
        for line in (siq / "qa" / f"qa_{split}.json").read_text().splitlines()
    ]
    corpus = [f"question: {r['q']} answer: " + " ".join(r[f"a{i}"] for i in range(4)) for r in rows]
    return build_tiny_t5(tmp_path_factory.mktemp("t5") / "t5", corpus)


@pytest.fixture(scope="session")
def tiny_clip(tmp_path_factory) -> Path:
    from media_fixtures import build_tiny_open_clip

    return build_tiny_open_clip(tmp_path_factory.mktemp("open_clip") / "oc")


@pytest.fixture(scope="session")
def adapter(tiny_dirs, scratch, cache, tmp_path_factory) -> Path:
    """A LoRA adapter folder of ``FINETUNE`` on the tiny LLaVA, with its checkpoints."""
    out = tmp_path_factory.mktemp("finetune") / "adapter"
    result = run("mmsoc", *FINETUNE, "--model", tiny_dirs["llava"], "--out", str(out), cwd=scratch, cache=cache)
    assert result.returncode == 0, result.stderr
    return out
