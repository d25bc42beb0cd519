"""``desiq fusion eval`` on its run folder (identity, resume after SIGKILL, lock) and the ``--data`` convention."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from media_fixtures import build_tiny_t5
from typer.testing import CliRunner

from desiq.cli import app
from desiq.formats.siq2 import write_siq2
from desiq.sample import sample_items, write_sample
from mmsoc.core.runfolder import RunFolder

ENV = {**os.environ, "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": ""}


def _desiq(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "desiq", *args], capture_output=True, text=True, env=ENV)


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A text-only (q+a) fusion model trained by ``desiq fusion train`` on a single QA file of the sample."""
    d = tmp_path_factory.mktemp("evaluate")
    items = sample_items("train") + sample_items("val")
    qa = d / "all.jsonl"
    write_siq2(qa, items)
    t5 = build_tiny_t5(d / "t5", [f"question: {x.question} answer: " + " ".join(x.options) for x in items])
    train = _desiq(
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
        "--out",
        str(d / "model"),
        "--epochs",
        "1",
        "--lr",
        "1e-3",
        "--seed",
        "0",
    )
    assert train.returncode == 0, train.stderr
    assert "q+a A4: dev A4" in train.stdout  # the result on stdout, the note on stderr
    metrics = json.loads((d / "model" / "metrics.json").read_text())
    assert metrics["n_train"] + metrics["n_dev"] == len(items) and metrics["n_dev"] > 0
    return {"dir": d, "qa": qa, "model": d / "model", "n": len(items)}


def _evaluate(env, out: Path, *extra: str) -> list[str]:
    return ["fusion", "eval", "--model", str(env["model"]), "--data", str(env["qa"]), "--out", str(out), *extra]


@pytest.fixture(scope="module")
def uninterrupted(env):
    out = env["dir"] / "whole"
    run = _desiq(*_evaluate(env, out))
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(f"{env['qa']}: A4 ")
    return out


@pytest.mark.slow
def test_a_sigkilled_evaluation_resumes_to_identical_metrics(env, uninterrupted):
    out = env["dir"] / "killed"
    proc = subprocess.Popen(
        [sys.executable, "-m", "desiq", *_evaluate(env, out, "--batch-size", "1")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=ENV,
    )
    log = out / "predictions.jsonl"
    deadline = time.monotonic() + 300
    while proc.poll() is None and time.monotonic() < deadline:
        if log.exists() and log.read_bytes().count(b"\n") >= 10:
            os.kill(proc.pid, signal.SIGKILL)
            break
        time.sleep(0.002)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    partial = len(_lines(log))
    assert 10 <= partial < env["n"] and not (out / "metrics.json").exists()

    resumed = _desiq(*_evaluate(env, out))
    assert resumed.returncode == 0, resumed.stderr
    runtime = json.loads((out / "runtime.json").read_text())
    assert runtime["predicted"] == [env["n"] - partial]  # only what the killed run had not finished
    whole, again = _lines(uninterrupted / "predictions.jsonl"), _lines(log)
    assert [r["id"] for r in again] == [r["id"] for r in whole] and len({r["id"] for r in whole}) == env["n"]
    assert [r["pred"] for r in again] == [r["pred"] for r in whole]
    np.testing.assert_allclose([r["scores"] for r in again], [r["scores"] for r in whole], atol=1e-5)
    assert json.loads((out / "metrics.json").read_text()) == json.loads((uninterrupted / "metrics.json").read_text())


def test_a_rerun_scores_nothing_and_metrics_come_from_the_log(env, uninterrupted):
    before = (uninterrupted / "predictions.jsonl").read_bytes()
    rerun = CliRunner().invoke(app, _evaluate(env, uninterrupted))
    assert rerun.exit_code == 0, rerun.output
    assert json.loads((uninterrupted / "runtime.json").read_text())["predicted"] == [0]
    assert (uninterrupted / "predictions.jsonl").read_bytes() == before
    rows = _lines(uninterrupted / "predictions.jsonl")
    metrics = json.loads((uninterrupted / "metrics.json").read_text())
    assert metrics["n"] == len(rows) == env["n"]
    assert metrics["A4"] == pytest.approx(np.mean([np.argmax(r["scores"]) == r["answer_idx"] for r in rows]))
    pairs = [r["scores"][r["answer_idx"]] > s for r in rows for j, s in enumerate(r["scores"]) if j != r["answer_idx"]]
    assert metrics["A2"] == pytest.approx(np.mean(pairs))
    assert (metrics["split"], metrics["perturb"], metrics["inputs"]) == (None, None, "q+a")


def test_another_configuration_on_the_same_folder_is_refused(env, uninterrupted):
    refused = CliRunner().invoke(app, _evaluate(env, uninterrupted, "--condition", "RIWI"))
    # the line on what was read, then the error on one line
    note, error = refused.output.splitlines()
    assert refused.exit_code == 2 and note.startswith("read ") and error.startswith("error: ")
    assert "belongs to a different run" in error and "perturb: None there, 'RIWI' now" in refused.output


def test_a_folder_in_use_is_refused(env, uninterrupted):
    with RunFolder(uninterrupted).lock():
        result = CliRunner().invoke(app, _evaluate(env, uninterrupted))
    assert result.exit_code == 2 and "in use by another run" in result.output


def test_a_social_iq_folder_and_its_qa_file_give_the_same_scores(env, tmp_path):
    root = write_sample(tmp_path / "sample", media=False)
    runner = CliRunner()
    by_folder = runner.invoke(
        app, ["fusion", "eval", "--model", str(env["model"]), "--data", str(root), "--out", str(tmp_path / "folder")]
    )
    by_file = runner.invoke(
        app,
        [
            "fusion",
            "eval",
            "--model",
            str(env["model"]),
            "--data",
            str(root / "qa" / "qa_val.json"),
            "--out",
            str(tmp_path / "file"),
        ],
    )
    assert by_folder.exit_code == 0 and by_file.exit_code == 0, by_folder.output + by_file.output
    folder, file = (json.loads((tmp_path / k / "metrics.json").read_text()) for k in ("folder", "file"))
    assert folder["split"] == "val" and file["split"] is None  # the folder's default split is val
    assert (
        (folder["A4"], folder["A2"], folder["n"])
        == (file["A4"], file["A2"], file["n"])
        == (folder["A4"], folder["A2"], len(sample_items("val")))
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (["fusion", "train", "--inputs", "q+a+t", "--backbone", "t5-small"], "need media (transcript)"),
        (["perturb", "--condition", "RIWI", "--split", "val"], "--split picks a file of a Social-IQ"),
    ],
)
def test_a_single_qa_file_refuses_media_and_splits(env, tmp_path, args, message):
    result = CliRunner().invoke(app, [*args, "--data", str(env["qa"]), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and message in result.output and not (tmp_path / "out").exists()


def test_a_folder_needs_a_split_where_the_command_has_no_default(tmp_path):
    root = write_sample(tmp_path / "sample", media=False)
    runner = CliRunner()
    missing = runner.invoke(app, ["build", "--data", str(root), "--variant", "d", "--out", str(tmp_path / "d.json")])
    assert missing.exit_code == 2 and "pass --split" in missing.output
    absent = runner.invoke(
        app, ["build", "--data", str(root), "--split", "test", "--variant", "d", "--out", str(tmp_path / "d.json")]
    )
    assert absent.exit_code == 2 and "qa_test.json: file not found" in absent.output
    built = runner.invoke(
        app, ["build", "--data", str(root), "--split", "train", "--variant", "d", "--out", str(tmp_path / "d.json")]
    )
    assert built.exit_code == 0, built.output
    assert len(_lines(tmp_path / "d.json")) == len(sample_items("train"))


def test_unlabelled_questions_are_predicted_but_never_given_an_accuracy(env, tmp_path):
    test_rows = [
        {k: v for k, v in row.items() if k not in ("ans_corr", "answer_idx", "idx_types")}
        for row in _lines(env["qa"])[:6]
    ]
    qa = tmp_path / "qa_test.json"
    qa.write_text("".join(json.dumps(row) + "\n" for row in test_rows))
    result = CliRunner().invoke(
        app, ["fusion", "eval", "--model", str(env["model"]), "--data", str(qa), "--out", str(tmp_path / "run")]
    )
    assert result.exit_code == 0, result.output
    assert "6 unlabelled questions (no answer key): not scored" in result.stdout and "A4" not in result.stdout
    assert len(_lines(tmp_path / "run" / "predictions.jsonl")) == 6
    probe = CliRunner().invoke(
        app,
        [
            "probe",
            "--train",
            str(env["qa"]),
            "--eval",
            str(qa),
            "--probe",
            "tfidf-linear",
            "--out",
            str(tmp_path / "probe"),
        ],
    )
    assert probe.exit_code == 2 and "6 questions have no answer key" in probe.output
