"""``mmsoc eval`` end to end on the sample, through the real ``--model DIR`` loading path."""

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
from tiny_models import BUILDERS
from typer.testing import CliRunner

from mmsoc.cli import app
from mmsoc.tasks import parse_task_list, task_ids
from mmsoc.tasks.registry import TASKS

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1"}
"""Child processes: CPU only, one thread each (the CPUs are shared)."""


def _eval(*args: str):
    result = CliRunner().invoke(app, ["eval", "--no-progress", "--fast-metrics", *args])
    assert result.exit_code == 0, result.output
    return result


def _rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "predictions.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("family", list(BUILDERS))
def test_every_task_runs_end_to_end(family, tiny_dirs, tmp_path):
    _eval(
        "--task",
        "all",
        "--model",
        tiny_dirs[family],
        "--greedy",
        "--limit",
        "2",
        "--max-new-tokens",
        "4",
        "--out",
        str(tmp_path),
    )
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert list(metrics) == list(task_ids())
    for task, entry in metrics.items():
        assert entry["n"] == 2 and 0.0 <= entry["success_rate"] <= 1.0
        assert TASKS[task].headline in entry["metrics"]
    assert {"wer", "cer"} <= set(metrics["ocr"]["metrics"]) and "jaccard" in metrics["tagging"]["metrics"]
    rows = _rows(tmp_path)
    assert len(rows) == 2 * len(task_ids())
    assert {"task", "id", "seed", "prompt_version", "raw", "parsed", "valid", "reference"} <= set(rows[0])
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["model"] == tiny_dirs[family] and config["greedy"] and config["seeds"] is None


def test_greedy_predictions_identical_for_batch_sizes_1_and_8(tiny_dirs, tmp_path):
    args = ["--task", "hate,ocr", "--model", tiny_dirs["llava"], "--greedy", "--limit", "5", "--max-new-tokens", "6"]
    _eval(*args, "--batch-size", "1", "--out", str(tmp_path / "b1"))
    _eval(*args, "--batch-size", "8", "--out", str(tmp_path / "b8"))
    assert (tmp_path / "b1/predictions.jsonl").read_bytes() == (tmp_path / "b8/predictions.jsonl").read_bytes()
    assert len(_rows(tmp_path / "b1")) == 10  # batches of 8 and 2 against ten of 1


def test_task_lists_are_parsed_alike_by_every_command(tmp_path):
    assert parse_task_list("all") == task_ids()
    assert parse_task_list(" hate, ocr,hate ") == ("hate", "ocr")
    with pytest.raises(ValueError, match="at least one task"):
        parse_task_list(" , ")
    # finetune takes a checkpoint (a hub id is never loaded: the task list is refused first)
    for args, model in (
        (["eval", "--task"], "random"),
        (["finetune", "--task"], "org/model"),
        (["explain", "--task"], "random"),
    ):
        result = CliRunner().invoke(app, [*args, "hate,nope", "--model", model, "--out", str(tmp_path / "x")])
        assert result.exit_code == 2 and "unknown task 'nope'" in result.output, args
    assert not (tmp_path / "x").exists()


def test_a_different_config_on_the_same_folder_is_refused(tmp_path):
    _eval("--task", "hate", "--model", "random", "--limit", "3", "--out", str(tmp_path))
    result = CliRunner().invoke(
        app, ["eval", "--task", "hate", "--model", "random", "--limit", "3", "--greedy", "--out", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "different run" in result.output and "greedy" in result.output


def test_a_model_that_fails_to_load_leaves_the_run_folder_unclaimed(tmp_path):
    (tmp_path / "empty_model").mkdir()
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app, ["eval", "--task", "hate", "--model", str(tmp_path / "empty_model"), "--limit", "2", "--out", str(out)]
    )
    assert result.exit_code == 2 and "cannot load model" in result.output
    assert not (out / "config.json").exists()


def test_text_baseline_beats_random_where_the_text_carries_the_answer(tmp_path):
    """The sample's video titles and descriptions carry their topics; its classification labels are in the
    pictures instead (the text baseline is at chance there: tests/test_sample_needs_image.py)."""
    _eval("--task", "tagging", "--model", "random", "--greedy", "--out", str(tmp_path / "random"))
    _eval("--task", "tagging", "--model", "text-baseline", "--greedy", "--out", str(tmp_path / "text"))
    chance = json.loads((tmp_path / "random/metrics.json").read_text())["tagging"]["metrics"]
    text = json.loads((tmp_path / "text/metrics.json").read_text())["tagging"]["metrics"]
    for key in ("macro_f1", "jaccard"):
        assert text[key] > chance[key] + 0.2, (key, text[key], chance[key])


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "mmsoc", "eval", "--no-progress", "--fast-metrics", *args]


def test_sigkill_mid_run_then_resume_matches_uninterrupted(tiny_dirs, tmp_path):
    args = [
        "--task",
        "hate",
        "--model",
        tiny_dirs["llava"],
        "--seeds",
        "0,1",
        "--limit",
        "5",
        "--batch-size",
        "1",
        "--max-new-tokens",
        "8",
    ]
    killed = tmp_path / "killed"
    proc = subprocess.Popen(
        _cli(*args, "--out", str(killed)), cwd=REPO, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    log = killed / "predictions.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline and (not log.exists() or log.read_bytes().count(b"\n") < 2):
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = log.read_bytes().count(b"\n")
    assert 2 <= done_before < 10
    _eval(*args, "--out", str(killed))  # the same command again resumes
    _eval(*args, "--out", str(tmp_path / "whole"))
    rows = _rows(killed)
    keys = [(r["task"], r["id"], r["seed"]) for r in rows]
    assert len(keys) == len(set(keys)) == 2 * 5
    assert log.read_bytes() == (tmp_path / "whole/predictions.jsonl").read_bytes()
    assert (killed / "metrics.json").read_bytes() == (tmp_path / "whole/metrics.json").read_bytes()


@pytest.mark.slow
def test_two_processes_merge_into_the_single_process_files(tiny_dirs, tmp_path):
    args = [
        "--task",
        "hate",
        "--model",
        tiny_dirs["blip2"],
        "--seeds",
        "0,1",
        "--limit",
        "3",
        "--max-new-tokens",
        "4",
        "--device",
        "cpu",
        "--threads",
        "1",
    ]
    launch = [
        *accelerate_launch(),
        "-m",
        "mmsoc",
        "eval",
        "--no-progress",
        "--fast-metrics",
    ]
    out = subprocess.run(
        [*launch, *args, "--out", str(tmp_path / "two")], cwd=REPO, env=ENV, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-3000:]
    _eval(*args, "--out", str(tmp_path / "one"))
    assert (tmp_path / "two/predictions.jsonl").read_bytes() == (tmp_path / "one/predictions.jsonl").read_bytes()
    assert (tmp_path / "two/metrics.json").read_bytes() == (tmp_path / "one/metrics.json").read_bytes()
    assert not list((tmp_path / "two").glob("predictions.rank*"))
    # The six predictions were shared out, three per process, not made twice.
    runtime = {name: json.loads((tmp_path / name / "runtime.json").read_text()) for name in ("two", "one")}
    runtime = {name: {key: r[key] for key in ("processes", "predicted", "threads")} for name, r in runtime.items()}
    assert runtime == {
        "two": {"processes": 2, "predicted": [3, 3], "threads": 1},
        "one": {"processes": 1, "predicted": [6], "threads": 1},
    }
