"""Faults around the run folder: concurrent writers (issue item 5, and every other writer of a run folder),
shrinking limits, file permissions (item 4)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .harness import Result, base_env, files, jsonl, run, start

pytestmark = pytest.mark.slow  # long end-to-end runs: `pytest -m slow`


def test_a_second_writer_is_refused_and_the_first_loses_nothing(tiny_dirs, scratch, cache, tmp_path):
    out = tmp_path / "run"
    common = [
        "eval",
        "--task",
        "hate",
        "--split",
        "train",
        "--model",
        tiny_dirs["llava"],
        "--seeds",
        "0,1,2,3,4,5,6,7",  # 320 answers: the first run is still going when the second starts up
        "--max-new-tokens",
        "96",
        "--batch-size",
        "1",
        "--no-progress",
        "--fast-metrics",
        "--out",
        str(out),
    ]
    first = start("mmsoc", *common, "--limit", "40", cwd=scratch, cache=cache)
    log = out / "predictions.jsonl"
    deadline = time.time() + 300
    while (not log.exists() or log.read_bytes().count(b"\n") < 1) and time.time() < deadline and first.poll() is None:
        time.sleep(0.01)
    assert first.poll() is None, "the first run ended before the second could start"
    second = run("mmsoc", *common, "--limit", "2", cwd=scratch, cache=cache)
    assert "in use by another run" in second.error_line()
    _, err = first.communicate(timeout=600)
    assert first.returncode == 0, err
    rows = jsonl(log)
    keys = [(r["id"], r["seed"]) for r in rows]
    assert len(keys) == len(set(keys)) == 8 * 40
    assert json.loads((out / "metrics.json").read_text())["hate"]["n"] == 40


def test_a_smaller_limit_is_refused_and_a_larger_one_extends(scratch, cache, tmp_path):
    out = str(tmp_path / "run")
    args = ["eval", "--task", "hate", "--model", "random", "--greedy", "--no-progress", "--out", out]
    assert run("mmsoc", *args, "--limit", "4", cwd=scratch, cache=cache).returncode == 0
    smaller = run("mmsoc", *args, "--limit", "2", cwd=scratch, cache=cache)
    assert "limit: 4 there, 2 now" in smaller.error_line()
    assert run("mmsoc", *args, "--limit", "6", cwd=scratch, cache=cache).returncode == 0
    assert json.loads((tmp_path / "run/metrics.json").read_text())["hate"]["n"] == 6
    assert json.loads((tmp_path / "run/config.json").read_text())["limit"] == 6


def test_outputs_get_the_permissions_of_a_plain_open(scratch, cache, tmp_path):
    out = tmp_path / "run"
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, sys, runpy; os.umask(0o027); sys.argv = sys.argv[1:]; "
            "runpy.run_module('mmsoc', run_name='__main__')",
            "mmsoc",
            "eval",
            "--task",
            "hate",
            "--model",
            "random",
            "--greedy",
            "--limit",
            "2",
            "--no-progress",
            "--out",
            str(out),
        ],
        cwd=scratch,
        env=base_env(cache),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == 0, child.stderr
    for name in ("config.json", "predictions.jsonl", "metrics.json", "runtime.json", "problems.jsonl"):
        assert (out / name).stat().st_mode & 0o777 == 0o640, name


# --- every writer of a run folder: a second writer is refused while the first is held mid-run ------------


def _held_race(
    prog: str, args: list[str], log: Path, scratch: Path, cache: Path
) -> tuple[subprocess.Popen, str, Result]:
    """Start ``prog ARGS``, stop it (SIGSTOP) once its log holds a finished prediction, run the same command
    again meanwhile, then let the first go on. Returns (first, its stderr, the second's result)."""
    first = start(prog, *args, cwd=scratch, cache=cache)
    deadline = time.time() + 600
    while (not log.exists() or log.read_bytes().count(b"\n") < 1) and first.poll() is None and time.time() < deadline:
        time.sleep(0.002)
    assert first.poll() is None, "the first run ended before it could be held: " + first.communicate()[1][-2000:]
    os.kill(first.pid, signal.SIGSTOP)
    try:
        second = run(prog, *args, cwd=scratch, cache=cache)
    finally:
        os.kill(first.pid, signal.SIGCONT)
    _, err = first.communicate(timeout=600)
    return first, err, second


@pytest.fixture(scope="module")
def fusion_model(small_siq, tiny_t5, scratch, cache, tmp_path_factory) -> Path:
    model = tmp_path_factory.mktemp("fusion") / "model"
    result = run(
        "desiq",
        "fusion",
        "train",
        "--architecture",
        "ours",
        "--data",
        str(small_siq / "qa" / "qa_train.json"),
        "--inputs",
        "q+a",
        "--backbone",
        str(tiny_t5),
        "--epochs",
        "1",
        "--out",
        str(model),
        cwd=scratch,
        cache=cache,
    )
    assert result.returncode == 0, result.stderr
    return model


@pytest.fixture(scope="module")
def judge_battles(tmp_path_factory) -> Path:
    from mmsoc.arena.records import Battle, write_battles

    path = tmp_path_factory.mktemp("battles") / "battles.jsonl"
    write_battles(
        path,
        [
            Battle(f"b{k}", f"i{k}", "a", "b", f"first answer {k}", f"second answer {k}", task="social_context")
            for k in range(8)
        ],
    )
    return path


WRITERS = {
    "explain": lambda a: (
        "mmsoc",
        [
            "explain",
            "--model",
            a["llava"],
            "--task",
            "hate",
            "--limit",
            "12",
            "--batch-size",
            "1",
            "--max-new-tokens",
            "16",
            "--no-progress",
        ],
        "",
    ),
    "self-improve": lambda a: (
        "mmsoc",
        [
            "self-improve",
            "--model",
            a["llava"],
            "--task",
            "social_context",
            "--limit",
            "4",
            "--rounds",
            "3",
            "--batch-size",
            "1",
            "--greedy",
            "--max-new-tokens",
            "16",
            "--text-encoder",
            "default",
            "--no-progress",
        ],
        "",
    ),
    "desiq fusion eval": lambda a: (
        "desiq",
        ["fusion", "eval", "--model", str(a["model"]), "--data", a["qa_val"], "--batch-size", "1"],
        "",
    ),
    "arena judge": lambda a: (
        "mmsoc",
        [
            "arena",
            "judge",
            "--model",
            a["llava"],
            "--battles",
            str(a["battles"]),
            "--batch-size",
            "1",
            "--max-new-tokens",
            "16",
            "--no-progress",
        ],
        ".run",
    ),
}


@pytest.mark.parametrize("writer", list(WRITERS))
def test_every_writer_refuses_a_second_writer_and_loses_nothing(
    writer, tiny_dirs, fusion_model, judge_battles, small_siq, scratch, cache, tmp_path
):
    """The first run, held mid-run while the same command starts on its folder, ends with the files an
    uninterrupted run writes (no prediction lost, metrics over the whole log); the second is refused
    before it writes or reports anything."""
    assets = {
        "llava": tiny_dirs["llava"],
        "model": fusion_model,
        "battles": judge_battles,
        "qa_val": str(small_siq / "qa" / "qa_val.json"),
    }
    prog, args, run_suffix = WRITERS[writer](assets)
    out_of = (lambda name: tmp_path / f"{name}.jsonl") if run_suffix else (lambda name: tmp_path / name)
    reference = run(prog, *args, "--out", str(out_of("reference")), cwd=scratch, cache=cache)
    assert reference.returncode == 0, reference.stderr
    folder_of = lambda name: tmp_path / f"{name}{run_suffix}"
    first, err, second = _held_race(
        prog, [*args, "--out", str(out_of("raced"))], folder_of("raced") / "predictions.jsonl", scratch, cache
    )
    assert first.returncode == 0, err
    line = second.error_line()
    assert "in use by another run" in line and second.stdout == ""
    skip = ("runtime.json", ".lock", "config.json", "similarity.png")
    assert files(folder_of("raced"), skip) == files(folder_of("reference"), skip)
    if run_suffix:
        assert out_of("raced").read_bytes() == out_of("reference").read_bytes()
