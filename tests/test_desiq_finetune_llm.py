"""``desiq finetune``: a tiny LLaVA learns from the frames what the questions alone cannot tell it.

In the embedded sample each video's hidden emotion shows in the colour of its frames and the correct
option names that emotion. The same tiny LLaVA-1.5 (random weights) is fine-tuned with LoRA three
times, seeing the video (q+a+v), the question and options (q+a) or the options alone (a); the blind
setting is reported zero-shot and fine-tuned beside the others (``desiq table``).
"""

from __future__ import annotations

import json

import pytest
from tiny_video_models import build_llava15
from typer.testing import CliRunner

from desiq.cli import app
from desiq.sample import write_sample

TRAIN = [
    "--num-frames",
    "2",
    "--epochs",
    "25",
    "--batch-size",
    "8",
    "--micro-batch-size",
    "8",
    "--lr",
    "5e-3",
    "--lora-rank",
    "16",
    "--lora-alpha",
    "32",
    "--lora-dropout",
    "0",
    "--precision",
    "no",
    "--target-modules",
    "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj,lm_head",
]
"""A random-weight model needs many passes, a high rate and adapters on every linear layer and the output head."""


def desiq(*args) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.slow
def test_fine_tuning_with_the_video_beats_fine_tuning_without_it(tmp_path):
    sample, model = write_sample(tmp_path / "sample"), build_llava15(tmp_path / "llava")
    common = ["--data", sample, "--cache-dir", tmp_path / "cache", "--no-progress"]
    runs = {}
    for inputs in ("q+a+v", "q+a", "a"):
        adapter = tmp_path / f"adapter_{inputs}"
        out = desiq("finetune", "--model", model, "--out", adapter, "--inputs", inputs, *TRAIN, *common)
        assert "625 steps" in out  # 25 epochs of the 199 training questions in batches of 8
        for name, extra in (("zero-shot", []), ("fine-tuned", ["--adapter", adapter])):
            run = tmp_path / f"{name} {inputs}"
            desiq(
                "eval",
                "--model",
                model,
                "--out",
                run,
                "--inputs",
                inputs,
                "--num-frames",
                "2",
                "--condition",
                "original",
                *extra,
                *common,
            )
            runs[(name, inputs)] = run
    table = desiq("table", *runs.values(), "--out", tmp_path / "comparison.md")
    print(table)

    def a4(key) -> float:
        metrics = json.loads((runs[key] / "metrics.json").read_text())
        return next(r["accuracy"] for r in metrics["results"] if r["config"] == "A4")

    assert a4(("fine-tuned", "q+a+v")) - a4(("fine-tuned", "q+a")) >= 0.15
    assert json.loads((runs[("fine-tuned", "a")] / "config.json").read_text())["adapter"] == str(tmp_path / "adapter_a")
    assert all(f"| {run.name} |" in table for run in runs.values())  # the blind runs are reported beside the others
    finetuned = json.loads((tmp_path / "adapter_q+a+v" / "finetune_config.json").read_text())
    assert finetuned["inputs"] == "q+a+v" and finetuned["media"]["video_input"] == "frames"
    assert finetuned["items"] == 199 and finetuned["without_media"] == 0
