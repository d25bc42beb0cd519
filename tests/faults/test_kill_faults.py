"""Processes killed (SIGKILL) at chosen points: before each rename of a save, so that every moment a
reader could look at is looked at (issue items 7, 8 and the temporaries of item 11)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .harness import base_env, files, run, temporaries

pytestmark = pytest.mark.slow  # long end-to-end runs: `pytest -m slow`


def _train(out: Path, seed: int, qa: Path, t5: Path, scratch: Path, cache: Path, kill: str | None = None):
    return run(
        "desiq",
        "fusion",
        "train",
        "--architecture",
        "ours",
        "--data",
        str(qa),
        "--inputs",
        "q+a",
        "--backbone",
        str(t5),
        "--epochs",
        "1",
        "--seed",
        str(seed),
        "--out",
        str(out),
        cwd=scratch,
        cache=cache,
        kill=kill,
    )


def test_a_model_saved_over_another_is_the_old_or_the_new_never_a_mix(small_siq, tiny_t5, scratch, cache, tmp_path):
    """Item 8: ``desiq fusion train`` over an existing model, killed before each rename of its save. The folder then
    holds the old model with its metrics, or the new one with its metrics, file for file."""
    qa = small_siq / "qa" / "qa_train.json"
    for seed in (0, 1):
        result = _train(tmp_path / f"reference{seed}", seed, qa, tiny_t5, scratch, cache)
        assert result.returncode == 0, result.stderr
    old, new = files(tmp_path / "reference0"), files(tmp_path / "reference1")
    assert old.keys() == new.keys() and "metrics.json" in old and old["metrics.json"] != new["metrics.json"]
    model = tmp_path / "work" / "model"
    shutil.copytree(tmp_path / "reference0", model)
    kills = 0
    for k in range(1, 20):
        result = _train(model, 1, qa, tiny_t5, scratch, cache, kill=f"rename:*:{k}")
        found = files(model)
        if not result.killed:
            assert result.returncode == 0, result.stderr
            assert found == new
            break
        kills += 1
        assert found in (old, new), f"killed before rename {k}: a mix of two models ({sorted(found)})"
    assert kills >= 1
    assert not temporaries(tmp_path / "work")  # the last run removed what the killed ones left


def test_probe_json_is_written_once_so_a_kill_leaves_none_or_the_whole(small_siq, scratch, cache, tmp_path):
    """Item 7: killed before each rename, ``desiq probe`` leaves no probe.json or the complete one."""
    args = [
        "probe",
        "--probe",
        "tfidf-linear",
        "--train",
        str(small_siq / "qa" / "qa_train.json"),
        "--eval",
        str(small_siq / "qa" / "qa_val.json"),
    ]
    result = run("desiq", *args, "--out", str(tmp_path / "reference"), cwd=scratch, cache=cache)
    assert result.returncode == 0, result.stderr
    whole = (tmp_path / "reference" / "probe.json").read_bytes()
    kills = 0
    for k in range(1, 20):
        out = tmp_path / f"killed{k}"
        result = run("desiq", *args, "--out", str(out), cwd=scratch, cache=cache, kill=f"rename:*:{k}")
        if not result.killed:
            assert result.returncode == 0 and (out / "probe.json").read_bytes() == whole
            break
        kills += 1
        assert not (out / "probe.json").exists() or (out / "probe.json").read_bytes() == whole, (
            f"killed before rename {k}: a probe.json that is not the whole result"
        )
    assert kills >= 2


def test_a_temporary_left_by_a_killed_build_is_removed_by_the_next_one(small_siq, scratch, cache, tmp_path):
    """Item 11: a build killed with its output written but not yet renamed leaves its temporary; the next
    build of the same file removes it and writes the same bytes an uninterrupted build does."""
    args = ["build", "--data", str(small_siq / "qa" / "qa_train.json"), "--variant", "s"]
    assert run("desiq", *args, "--out", str(tmp_path / "reference.json"), cwd=scratch, cache=cache).returncode == 0
    out = tmp_path / "work" / "built.json"
    killed = run("desiq", *args, "--out", str(out), cwd=scratch, cache=cache, kill="rename:built.json:1")
    assert killed.killed and not out.exists()
    left = temporaries(out.parent)
    assert len(left) == 1 and left[0].stat().st_size > 0
    done = run("desiq", *args, "--out", str(out), cwd=scratch, cache=cache)
    assert done.returncode == 0, done.stderr
    assert not temporaries(out.parent) and out.read_bytes() == (tmp_path / "reference.json").read_bytes()


WRITER = """
import sys, time
from mmsoc.core.io import atomic_open
with atomic_open(sys.argv[1]) as handle:
    handle.write("complete")
    print("writing", flush=True)
    sys.stdin.readline()
"""


def test_stale_temporaries_are_removed_only_when_their_writer_is_gone(tmp_path):
    """Item 11, safely: a live writer's temporary is never removed; one whose process is dead is, unless a
    live process still holds its lock."""
    from mmsoc.core.io import remove_stale_temporaries

    target = tmp_path / "out.json"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(target)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=base_env(tmp_path),
    )
    assert writer.stdout.readline().strip() == "writing"
    live = temporaries(tmp_path)
    assert len(live) == 1 and f".out.json.{writer.pid}-" in live[0].name
    gone = subprocess.Popen(["true"])
    gone.wait()
    dead = tmp_path / f".out.json.{gone.pid}-abc123.tmp"
    dead.write_text("half")
    locked = tmp_path / f".out.json.{gone.pid}-def456.tmp"
    locked.write_text("half")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); "
            "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.readline()",
            str(locked),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "held"
    other = tmp_path / f".other.json.{gone.pid}-abc123.tmp"
    other.write_text("another file's")
    try:
        assert remove_stale_temporaries(target) == [dead]
        assert live[0].exists() and locked.exists() and other.exists() and not dead.exists()
    finally:
        holder.communicate("\n")
        writer.communicate("\n")
    assert writer.returncode == 0 and target.read_text() == "complete"
    assert remove_stale_temporaries(target) == [locked]  # its lock is gone with its holder
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([other.name, "out.json"])


def test_a_killed_eval_resumes_to_the_uninterrupted_predictions(tiny_dirs, scratch, cache, tmp_path):
    """The run folder's append log survives a kill in the middle of a batch (a rerun finishes it)."""
    args = [
        "eval",
        "--task",
        "hate",
        "--model",
        tiny_dirs["llava"],
        "--greedy",
        "--max-new-tokens",
        "4",
        "--limit",
        "6",
        "--batch-size",
        "2",
        "--no-progress",
        "--fast-metrics",
    ]
    assert run("mmsoc", *args, "--out", str(tmp_path / "reference"), cwd=scratch, cache=cache).returncode == 0
    out = tmp_path / "killed"
    proc = subprocess.Popen(
        [sys.executable, "-m", "mmsoc", *args, "--out", str(out)],
        cwd=scratch,
        env=base_env(cache),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 300
    log = out / "predictions.jsonl"
    while (not log.exists() or log.read_bytes().count(b"\n") < 2) and proc.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert run("mmsoc", *args, "--out", str(out), cwd=scratch, cache=cache).returncode == 0
    skip = ("runtime.json", ".lock")
    assert files(out, skip) == files(tmp_path / "reference", skip)
