"""The embedded MM-Soc sample needs the picture: the text-only baseline is at chance on the classification
tasks (their captions and headlines are shared by items of every label), while a tiny LLaVA fine-tuned on the
train split's pictures beats it on hate, through the real ``mmsoc finetune`` and ``mmsoc eval`` commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from typer.testing import CliRunner

from mmsoc.cli import app
from mmsoc.tasks.data.sample import N_TEST

TEXT_BOUND = ("hate", "sentiment", "misinfo_politifact", "misinfo_gossipcop")
"""Tasks where the text baseline must stay at or under macro-F1 0.70 (the issue's acceptance)."""


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _run(*args: str | Path) -> None:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output


def _metrics(run: Path) -> dict:
    return json.loads((run / "metrics.json").read_text())


@pytest.fixture(scope="module")
def text_baseline(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("text") / "run"
    _run(
        "eval",
        "--no-progress",
        "--fast-metrics",
        "--task",
        ",".join(TEXT_BOUND),
        "--model",
        "text-baseline",
        "--greedy",
        "--out",
        out,
    )
    return _metrics(out)


def test_text_baseline_is_at_chance_where_the_picture_carries_the_label(text_baseline):
    for task in TEXT_BOUND:
        entry = text_baseline[task]
        assert entry["n"] == N_TEST and entry["success_rate"] == 1.0, task  # it answered every item, in format
        assert entry["metrics"]["macro_f1"] <= 0.70, (task, entry["metrics"]["macro_f1"])


def test_tiny_llava_fine_tuned_on_the_pictures_beats_the_text_baseline_on_hate(tiny_llava, text_baseline, tmp_path):
    adapter, run = tmp_path / "adapter", tmp_path / "tuned"
    # A tiny random model learns in seconds with LoRA on the output layer too and a high learning rate.
    _run(
        "finetune",
        "--model",
        tiny_llava,
        "--task",
        "hate",
        "--out",
        adapter,
        "--epochs",
        "10",
        "--lr",
        "1e-2",
        "--batch-size",
        "8",
        "--micro-batch-size",
        "8",
        "--lora-rank",
        "16",
        "--lora-alpha",
        "32",
        "--lora-dropout",
        "0",
        "--target-modules",
        "q_proj,v_proj,lm_head",
        "--no-progress",
    )
    _run(
        "eval",
        "--no-progress",
        "--fast-metrics",
        "--task",
        "hate",
        "--model",
        tiny_llava,
        "--adapter",
        adapter,
        "--greedy",
        "--max-new-tokens",
        "4",
        "--out",
        run,
    )
    tuned, text = _metrics(run)["hate"], text_baseline["hate"]
    assert tuned["n"] == text["n"] == N_TEST
    assert json.loads((run / "config.json").read_text())["split"] == "test"
    assert tuned["metrics"]["macro_f1"] >= 0.8
    assert tuned["metrics"]["macro_f1"] > text["metrics"]["macro_f1"] + 0.3
