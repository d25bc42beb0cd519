"""The embedded sample: small, deterministic data for every task of a suite, written in its layout.

Each dataset of the suite writes its own part (``Dataset.write_sample``), in ``sample_order``, from
one random generator seeded with ``SEED``. Every dataset has ``train`` (``N_TRAIN`` items) and
``test`` (``N_TEST`` items); the same code and Pillow version give the same bytes. A dataset without a
writer has no sample: its tasks are left out of ``--data sample`` (``sample_tasks``) with a note.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from mmsoc.core.io import UsageError
from mmsoc.core.paths import cache_root
from mmsoc.tasks.data import draw
from mmsoc.tasks.data.dataset import Dataset, SampleContext
from mmsoc.tasks.data.registry import DATASETS, suite_datasets
from mmsoc.tasks.registry import get_task

N_TRAIN, N_TEST = 40, 24
SPLITS = (("train", N_TRAIN), ("test", N_TEST))
SEED = 2024


def ensure_sample(suite: str = "mmsoc") -> Path:
    """The sample folder in the cache, written once (atomically) for this code and Pillow version."""
    import PIL

    modules = [draw.__name__, __name__] + [d.write_sample.__module__ for d in _writers(suite) if d.write_sample]
    sources = b"".join(Path(str(sys.modules[name].__file__)).read_bytes() for name in modules)
    fingerprint = hashlib.sha256(sources + PIL.__version__.encode()).hexdigest()[:12]
    path = cache_root() / (f"sample-{fingerprint}" if suite == "mmsoc" else f"sample-{suite}-{fingerprint}")
    if not path.is_dir():
        write_sample(path, suite=suite)
    return path


def without_sample(task_id: str) -> list[str]:
    """The datasets of a task that write no part of the embedded sample (none: the task has a sample)."""
    return [name for name in get_task(task_id).sources if DATASETS.get(name).write_sample is None]


def sample_tasks(tasks: Sequence[str]) -> tuple[tuple[str, ...], str | None]:
    """(the tasks that have an embedded sample, in order; a one-line note naming those left out and why,
    None when none is). None of them having one is a UsageError."""
    missing = {task: without_sample(task) for task in tasks}
    kept = tuple(task for task in tasks if not missing[task])
    left = [f"{task} (dataset {', '.join(names)} writes no sample)" for task, names in missing.items() if names]
    if not left:
        return kept, None
    if not kept:
        raise UsageError(f"--data sample: no embedded sample for {', '.join(left)}; give a data folder or 'hub'")
    return kept, f"note: --data sample: left out {len(left)} task(s) without an embedded sample: {', '.join(left)}"


def write_sample(out: str | os.PathLike, overwrite: bool = False, suite: str = "mmsoc") -> Path:
    """Write the whole sample of ``suite`` to ``out``: built beside it, then moved into place in one rename.

    ``out`` must not exist or be empty unless ``overwrite``; a crash leaves ``out`` as it was.
    """
    out = Path(out)
    if out.exists() and any(out.iterdir()) and not overwrite:
        raise FileExistsError(f"{out} is not empty (pass overwrite=True / --overwrite to replace it)")
    out.parent.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}."))
    try:
        context = SampleContext(random.Random(SEED), SPLITS)
        for dataset in _writers(suite):
            if dataset.write_sample is not None:
                dataset.write_sample(build / dataset.name, context)
        _move_into_place(build, out)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise
    return out


def _writers(suite: str) -> list[Dataset]:
    return [d for d in suite_datasets(suite) if d.write_sample is not None]


def _move_into_place(build: Path, out: Path) -> None:
    if out.exists() and any(out.iterdir()):
        old = out.with_name(f".{out.name}.old")
        shutil.rmtree(old, ignore_errors=True)
        os.replace(out, old)
        os.replace(build, out)
        shutil.rmtree(old)
        return
    try:
        os.replace(build, out)
    except OSError:
        if not (out.is_dir() and any(out.iterdir())):  # lost a race to another writer: theirs is identical
            raise
        shutil.rmtree(build)
