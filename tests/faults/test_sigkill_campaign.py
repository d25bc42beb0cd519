"""Random SIGKILLs across eval, fine-tuning, build, probe, train and the feature cache: every rerun ends
byte-identical to an uninterrupted run, with no temporary left behind.

Kill k (k = 0, 1, ...) goes to command ``ORDER[k % 6]`` at a point drawn with ``numpy`` seeded by
(``MMSOC_FAULT_SEED``, k): the Nth call of a project function (``killpoint.py call:N``), N uniform
over the calls the uninterrupted run of that command made. ``MMSOC_FAULT_KILLS`` kills in all
(default 3: build, probe and eval once each; ``MMSOC_FAULT_KILLS=20`` is the full campaign, about
20 minutes on two cores). Each killed run is rerun (the same command line) to its end and compared
file for file with the uninterrupted run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from .harness import files, run, temporaries

pytestmark = pytest.mark.slow  # long end-to-end runs: `pytest -m slow`

KILLS = int(os.environ.get("MMSOC_FAULT_KILLS", "3"))
SEED = int(os.environ.get("MMSOC_FAULT_SEED", "0"))
ORDER = ("build", "probe", "eval", "cache", "train", "finetune")
SKIP = ("runtime.json", ".lock")
"""Files that differ by design: runtime.json records the processes of the latest invocation only."""


@dataclass
class Campaign:
    """One command: its program and its command line for an output folder (compared whole)."""

    prog: str
    args: Callable[[Path], list[str]]


@pytest.fixture(scope="module")
def campaigns(tiny_dirs, tiny_t5, tiny_clip, small_siq) -> dict[str, Campaign]:
    qa_train, qa_val = str(small_siq / "qa" / "qa_train.json"), str(small_siq / "qa" / "qa_val.json")
    return {
        "build": Campaign(
            "desiq", lambda o: ["build", "--data", qa_train, "--variant", "s", "--out", str(o / "built.json")]
        ),
        "probe": Campaign(
            "desiq",
            lambda o: [
                "probe",
                "--probe",
                "tfidf-linear",
                "--train",
                qa_train,
                "--eval",
                qa_val,
                "--out",
                str(o / "probe"),
            ],
        ),
        "eval": Campaign(
            "mmsoc",
            lambda o: [
                "eval",
                "--task",
                "hate,social_context",
                "--model",
                tiny_dirs["llava"],
                "--greedy",
                "--max-new-tokens",
                "8",
                "--limit",
                "4",
                "--batch-size",
                "2",
                "--no-progress",
                "--fast-metrics",
                "--out",
                str(o / "run"),
            ],
        ),
        "cache": Campaign(
            "desiq",
            lambda o: [
                "fusion",
                "train",
                "--architecture",
                "ours",
                "--data",
                str(small_siq),
                "--inputs",
                "q+a+t+v+s",
                "--audio-encoder",
                "logmel",
                "--backbone",
                str(tiny_t5),
                "--video-encoder",
                str(tiny_clip),
                "--video-pretrained",
                "none",
                "--num-frames",
                "2",
                "--epochs",
                "1",
                "--cache-dir",
                str(o / "features"),
                "--out",
                str(o / "model"),
            ],
        ),
        "train": Campaign(
            "desiq",
            lambda o: [
                "fusion",
                "train",
                "--architecture",
                "ours",
                "--data",
                qa_train,
                "--inputs",
                "q+a",
                "--backbone",
                str(tiny_t5),
                "--epochs",
                "2",
                "--out",
                str(o / "model"),
            ],
        ),
        "finetune": Campaign(
            "mmsoc",
            lambda o: [
                "finetune",
                "--model",
                tiny_dirs["llava"],
                "--task",
                "hate",
                "--limit",
                "8",
                "--batch-size",
                "4",
                "--micro-batch-size",
                "2",
                "--save-every",
                "1",
                "--max-steps",
                "2",
                "--target-modules",
                "q_proj,v_proj",
                "--no-progress",
                "--resume",
                "--out",
                str(o / "adapter"),
            ],
        ),
    }


def _kills_of(name: str) -> list[int]:
    return [k for k in range(KILLS) if ORDER[k % len(ORDER)] == name]


@pytest.mark.parametrize("name", ORDER)
def test_random_kills_rerun_to_the_uninterrupted_bytes(name, campaigns, scratch, tmp_path):
    kills = _kills_of(name)
    if not kills:
        pytest.skip(f"no kill drawn for {name} (MMSOC_FAULT_KILLS={KILLS})")
    campaign = campaigns[name]
    reference = tmp_path / "reference"
    count = tmp_path / "count.json"
    whole = run(campaign.prog, *campaign.args(reference), cwd=scratch, cache=tmp_path / "cache", count=count)
    assert whole.returncode == 0, whole.stderr[-3000:]
    calls = json.loads(count.read_text())["calls"]
    expected = files(reference, SKIP)
    for k in kills:
        at = int(np.random.default_rng([SEED, k]).integers(1, calls + 1))
        out, own = tmp_path / f"kill{k}", tmp_path / f"cache{k}"  # a cache as empty as the uninterrupted run's
        killed = run(campaign.prog, *campaign.args(out), cwd=scratch, cache=own, kill=f"call:{at}")
        assert killed.killed, f"kill {k} ({name} at call {at} of {calls}) did not happen: {killed.stderr[-2000:]}"
        rerun = run(campaign.prog, *campaign.args(out), cwd=scratch, cache=own)
        assert rerun.returncode == 0, f"rerun after kill {k} ({name} at call {at}): {rerun.stderr[-3000:]}"
        assert files(out, SKIP) == expected, f"kill {k} ({name} at call {at} of {calls}): rerun differs"
        assert not temporaries(out), f"kill {k} ({name} at call {at}): {temporaries(out)} left"
        print(f"kill {k}: {name} at call {at} of {calls}: rerun byte-identical, no temporaries")
