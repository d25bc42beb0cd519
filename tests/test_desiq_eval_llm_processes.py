"""``desiq eval`` across processes: a SIGKILLed run resumes to the same metrics; two processes equal one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import accelerate_launch
from tiny_video_models import build_qwen2_vl

from desiq.sample import write_sample

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1"}


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    d = tmp_path_factory.mktemp("desiq_llm_processes")
    return d, write_sample(d / "sample"), build_qwen2_vl(d / "qwen2_vl")


def _args(setup, out: Path, *extra: str) -> list[str]:
    d, sample, model = setup
    return [
        "eval",
        "--model",
        str(model),
        "--data",
        str(sample),
        "--out",
        str(out),
        "--limit",
        "8",
        "--num-frames",
        "4",
        "--cache-dir",
        str(d / "cache"),
        "--no-progress",
        "--device",
        "cpu",
        *extra,
    ]


def _desiq(*args: str) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, "-m", "desiq", *args], cwd=REPO, env=ENV, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def _rows(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]


def _same_rows(a: list[dict], b: list[dict]) -> None:
    """Equal rows; log-likelihoods equal to float32 rounding (batches of other shapes)."""
    assert [{k: v for k, v in r.items() if k != "scores"} for r in a] == [
        {k: v for k, v in r.items() if k != "scores"} for r in b
    ]
    for x, y in zip(a, b):
        assert x["scores"] == pytest.approx(y["scores"], rel=1e-6, abs=1e-6)


@pytest.fixture(scope="module")
def uninterrupted(setup):
    out = setup[0] / "whole"
    _desiq(*_args(setup, out))
    return out


@pytest.mark.slow
def test_a_sigkilled_run_resumes_to_identical_metrics(setup, uninterrupted):
    out = setup[0] / "killed"
    proc = subprocess.Popen(
        [sys.executable, "-m", "desiq", *_args(setup, out, "--batch-size", "1")],
        cwd=REPO,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    log = out / "predictions.jsonl"
    deadline = time.monotonic() + 300
    while proc.poll() is None and time.monotonic() < deadline:
        if log.exists() and log.read_bytes().count(b"\n") >= 30:
            os.kill(proc.pid, signal.SIGKILL)
            break
        time.sleep(0.01)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    partial = log.read_bytes().count(b"\n")
    assert 30 <= partial < len(_rows(uninterrupted)) and not (out / "metrics.json").exists()
    _desiq(*_args(setup, out))  # the same command again resumes
    rows = _rows(out)
    assert len({(r["id"], r["condition"], r["rotation"]) for r in rows}) == len(rows) == len(_rows(uninterrupted))
    _same_rows(rows, _rows(uninterrupted))
    assert (out / "metrics.json").read_bytes() == (uninterrupted / "metrics.json").read_bytes()
    assert json.loads((out / "runtime.json").read_text())["predicted"] == [len(rows) - partial]


@pytest.mark.slow
def test_two_processes_equal_one(setup, uninterrupted):
    out = setup[0] / "two"
    launch = [
        *accelerate_launch(),
        "-m",
        "desiq",
    ]
    result = subprocess.run([*launch, *_args(setup, out)], cwd=REPO, env=ENV, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    _same_rows(_rows(out), _rows(uninterrupted))
    assert (out / "metrics.json").read_bytes() == (uninterrupted / "metrics.json").read_bytes()
    assert (out / "table.md").read_bytes() == (uninterrupted / "table.md").read_bytes()
    assert not list(out.glob("predictions.rank*"))
    rows = _rows(uninterrupted)
    videos = list(dict.fromkeys(row["vid_name"] for row in rows))  # process r asks videos r, r + 2, ...
    per_process = [sum(1 for row in rows if row["vid_name"] in videos[r::2]) for r in (0, 1)]
    runtime = json.loads((out / "runtime.json").read_text())
    assert runtime["processes"] == 2 and runtime["predicted"] == per_process and sum(per_process) == len(rows)
    assert runtime["rows_scored"] == sum(len(row["options"]) for row in rows)  # summed over the processes
