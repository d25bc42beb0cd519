"""The text LM backend (``--model lm:DIR``) on the SocKET and SuperTweetEval samples, through the real
``mmsoc eval`` command: every task type of both suites, results independent of the batch size, resumption
after SIGKILL, option scoring against a forward pass written out."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from tiny_models import build_tiny_causal_lm, build_tiny_seq2seq_lm
from typer.testing import CliRunner

from mmsoc.cli import app
from mmsoc.models.backends.lm import TextLM
from mmsoc.models.base import GenerationSettings, Image, Request, Text
from mmsoc.tasks import get_task, task_ids

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1"}
ONE_PER_KIND = {
    suite: ",".join({get_task(t).kind: t.split("/", 1)[1] for t in reversed(task_ids(suite))}.values())
    for suite in ("socket", "supertweeteval")
}
"""A task of every kind of each suite."""


@pytest.fixture(scope="module")
def lms(tmp_path_factory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("text_lms")
    return {"causal": str(build_tiny_causal_lm(root / "causal")), "seq2seq": str(build_tiny_seq2seq_lm(root / "t5"))}


def _eval(*args: str):
    result = CliRunner().invoke(app, ["eval", "--no-progress", "--fast-metrics", *args])
    assert result.exit_code == 0, result.output
    return result


def _rows(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("kind", ["causal", "seq2seq"])
@pytest.mark.parametrize("suite", ["socket", "supertweeteval"])
def test_every_task_of_both_suites_runs_on_the_sample(kind, suite, lms, tmp_path):
    _eval(
        "--suite",
        suite,
        "--task",
        "all",
        "--model",
        f"lm:{lms[kind]}",
        "--data",
        "sample",
        "--greedy",
        "--limit",
        "2",
        "--max-new-tokens",
        "4",
        "--out",
        str(tmp_path),
    )
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert list(metrics) == list(task_ids(suite))
    for task, entry in metrics.items():
        assert entry["n"] == 2 and get_task(task).headline in entry["metrics"], task
    rows = _rows(tmp_path)
    assert len(rows) == 2 * len(task_ids(suite)) and all(isinstance(r["raw"], str) for r in rows)
    assert not (tmp_path / "problems.jsonl").read_text().strip()


@pytest.mark.parametrize("kind", ["causal", "seq2seq"])
def test_batch_sizes_1_and_8_give_the_same_predictions(kind, lms, tmp_path):
    for suite in ("socket", "supertweeteval"):
        args = [
            "--suite",
            suite,
            "--task",
            ONE_PER_KIND[suite],
            "--model",
            f"lm:{lms[kind]}",
            "--seeds",
            "0,1",
            "--max-new-tokens",
            "6",
        ]
        _eval(*args, "--batch-size", "1", "--out", str(tmp_path / f"{suite}1"))
        _eval(*args, "--batch-size", "8", "--out", str(tmp_path / f"{suite}8"))
        one, eight = tmp_path / f"{suite}1", tmp_path / f"{suite}8"
        assert (one / "predictions.jsonl").read_bytes() == (eight / "predictions.jsonl").read_bytes()
        assert (one / "metrics.json").read_bytes() == (eight / "metrics.json").read_bytes()
        rows = _rows(one)
        assert {r["seed"] for r in rows} == {0, 1} and len({r["raw"] for r in rows}) > 1


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "mmsoc", "eval", "--no-progress", "--fast-metrics", *args]


@pytest.mark.slow
def test_sigkill_mid_run_then_resume_matches_uninterrupted(lms, tmp_path):
    args = [
        "--suite",
        "socket",
        "--task",
        "sarc,emobank#valence,toxic-span,humor-pairs",
        "--model",
        f"lm:{lms['causal']}",
        "--seeds",
        "0,1",
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
    deadline = time.time() + 180
    while time.time() < deadline and (not log.exists() or log.read_bytes().count(b"\n") < 5):
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = log.read_bytes().count(b"\n")
    assert 5 <= done_before < 48
    _eval(*args, "--out", str(killed))
    _eval(*args, "--out", str(tmp_path / "whole"))
    keys = [(r["task"], r["id"], r["seed"]) for r in _rows(killed)]
    assert len(keys) == len(set(keys)) == 4 * 6 * 2
    assert log.read_bytes() == (tmp_path / "whole/predictions.jsonl").read_bytes()
    assert (killed / "metrics.json").read_bytes() == (tmp_path / "whole/metrics.json").read_bytes()


@pytest.mark.parametrize("kind", ["causal", "seq2seq"])
def test_option_scores_equal_a_forward_pass_written_out(kind, lms):
    model = TextLM(lms[kind])
    requests = [
        Request("t", "a", (Text("Question: is it sarcastic?\nAnswer:"),)),
        Request("t", "b", (Text("Options:\nYes\nNo\nPlease only answer with the options. Answer:"),)),
    ]
    options = [["Yes", "No"], [" No", "Yes", "maybe not"]]
    together = model.score_options(requests, options)
    alone = [model.score_options([r], [o])[0] for r, o in zip(requests, options)]
    tok, lm = model.tokenizer, model.model
    for request, opts, scores, single in zip(requests, options, together, alone):
        for option, value, single_value in zip(opts, scores.loglik, single.loglik):
            prompt = tok(request.prompt)["input_ids"]
            target = tok(option, add_special_tokens=False)["input_ids"]
            with torch.no_grad():
                if kind == "causal":
                    logits = lm(torch.tensor([prompt + target])).logits[0]
                    logprobs = torch.log_softmax(logits.double(), -1)
                    expected = sum(logprobs[len(prompt) - 1 + i, t].item() for i, t in enumerate(target))
                else:
                    logits = lm(input_ids=torch.tensor([prompt]), labels=torch.tensor([target])).logits[0]
                    logprobs = torch.log_softmax(logits.double(), -1)
                    expected = sum(logprobs[i, t].item() for i, t in enumerate(target))
            assert value == pytest.approx(expected, abs=1e-4)
            assert value == pytest.approx(single_value, abs=1e-5)


def test_a_request_with_media_is_refused_naming_the_item(lms):
    model = TextLM(lms["causal"])
    with pytest.raises(ValueError, match="item 'x' carries media"):
        model.generate([Request("t", "x", (Image("a.png"), Text("hi")))], GenerationSettings(greedy=True))


def test_a_text_model_that_cannot_be_loaded_leaves_the_run_unclaimed(tmp_path):
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(
        app,
        [
            "eval",
            "--suite",
            "socket",
            "--task",
            "sarc",
            "--model",
            f"lm:{tmp_path / 'empty'}",
            "--out",
            str(tmp_path / "run"),
        ],
    )
    assert result.exit_code == 2 and "cannot load text model" in result.output
    assert not (tmp_path / "run" / "config.json").exists()


@pytest.mark.parametrize("suite", ["socket", "supertweeteval"])
def test_random_baseline_runs_offline_on_the_sample(suite, tmp_path):
    _eval("--suite", suite, "--task", "all", "--model", "random", "--data", "sample", "--out", str(tmp_path))
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert len(metrics) == len(task_ids(suite)) and all(e["n"] == 6 for e in metrics.values())
