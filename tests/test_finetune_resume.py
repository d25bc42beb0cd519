"""A killed fine-tuning run resumes from its last checkpoint; two processes give one adapter; resuming loads
no pickle and refuses a different configuration."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from processes import accelerate_launch
from safetensors.torch import load_file
from typer.testing import CliRunner

from mmsoc.cli import app

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = "epochs=1, batch_size=4, micro_batch_size=2, learning_rate=1e-2, save_every=2, seed=3"
LORA = "rank=4, alpha=8, dropout=0.1, target_modules=('q_proj', 'v_proj', 'lm_head')"
TRAIN = """
import os, sys, torch
torch.set_num_threads(1)
from mmsoc.models.loading import load_hf_model
from mmsoc.tasks.data import load_examples
from mmsoc.runners.finetune.data import build_training_set
from mmsoc.runners.finetune.lora_training import LoraSettings, TrainSettings, train_lora
from mmsoc.tasks.registry import TASKS
def train(model_dir, out, resume=False, on_step=None):
    items = build_training_set(load_examples("hate", "sample", "train", limit=16).examples,
                               {t: s.prompt for t, s in TASKS.items()}).items
    model, processor, family = load_hf_model(model_dir)
    return train_lora(model, processor, family, items, out, LoraSettings({lora}), TrainSettings({settings}),
                      resume=resume, on_step=on_step)
""".replace("{lora}", LORA).replace("{settings}", SETTINGS)
SCRIPT = (
    TRAIN
    + """
model_dir, out, kill_at = sys.argv[1], sys.argv[2], int(sys.argv[3])
def on_step(step, loss):
    if step == kill_at:
        os.kill(os.getpid(), 9)
train(model_dir, out, on_step=on_step)
"""
)


def _run(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def _log(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "train_log.jsonl").read_text().splitlines()]


def test_killed_run_resumes_to_the_uninterrupted_result(tiny_llava, tmp_path):
    killed = _run(str(tiny_llava), str(tmp_path / "killed"), "3")
    assert killed.returncode == -9
    assert [row["step"] for row in _log(tmp_path / "killed")] == [1, 2, 3]  # step 3 logged after checkpoint 2
    assert not (tmp_path / "killed" / "adapter_model.safetensors").exists()
    threads, scope = torch.get_num_threads(), {}
    try:
        exec(TRAIN, scope)  # the uninterrupted run and the resumed one, in this process
        assert scope["train"](str(tiny_llava), tmp_path / "whole").steps == 4
        resumed = scope["train"](str(tiny_llava), tmp_path / "killed", resume=True)
    finally:
        torch.set_num_threads(threads)
    assert (resumed.resumed_from, resumed.steps) == (2, 4)
    assert _log(tmp_path / "killed") == _log(tmp_path / "whole")
    a = load_file(tmp_path / "whole" / "adapter_model.safetensors")
    b = load_file(tmp_path / "killed" / "adapter_model.safetensors")
    assert a.keys() == b.keys()
    for key in a:
        torch.testing.assert_close(a[key], b[key], atol=1e-6, rtol=1e-5)


@pytest.mark.slow
def test_two_process_accelerate_launch_gives_one_adapter(tiny_llava, tmp_path):
    out = tmp_path / "adapter"
    command = [
        *accelerate_launch(),
        "-m",
        "mmsoc",
        "finetune",
        "--model",
        str(tiny_llava),
        "--task",
        "hate",
        "--limit",
        "8",
        "--out",
        str(out),
        "--batch-size",
        "4",
        "--micro-batch-size",
        "2",
        "--target-modules",
        "q_proj,v_proj,lm_head",
        "--lr",
        "1e-2",
        "--no-progress",
    ]
    done = subprocess.run(
        command, cwd=ROOT, env={**os.environ, "OMP_NUM_THREADS": "1"}, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    config = json.loads((out / "finetune_config.json").read_text())
    assert (config["processes"], config["gradient_accumulation"], config["effective_batch_size"]) == (2, 1, 4)
    assert [row["step"] for row in _log(out)] == [1, 2]
    assert done.stdout.count("adapter:") == 1
    assert sorted(p.name for p in out.glob("adapter_*")) == ["adapter_config.json", "adapter_model.safetensors"]


# --- resuming checks what it resumes ---------------------------------------------------------------

CLI = [
    "finetune",
    "--task",
    "hate",
    "--limit",
    "8",
    "--batch-size",
    "4",
    "--micro-batch-size",
    "2",
    "--lr",
    "1e-2",
    "--save-every",
    "1",
    "--max-steps",
    "2",
    "--target-modules",
    "q_proj,v_proj",
    "--no-progress",
]


class _CreatesFile:
    """Unpickling this creates the file at ``path``."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


@pytest.fixture(scope="module")
def cli_run(tiny_llava, tmp_path_factory):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    out = tmp_path_factory.mktemp("cli") / "adapter"
    result = CliRunner().invoke(app, [*CLI, "--model", str(tiny_llava), "--out", str(out)])
    assert result.exit_code == 0, result.output
    yield tiny_llava, out
    torch.set_num_threads(threads)


def _resume(model: Path, out: Path, *changes: str):
    return CliRunner().invoke(app, [*CLI, "--model", str(model), "--out", str(out), "--resume", *changes])


def _error(output: str) -> str:
    """The one error line (a refusal comes before the model is loaded, so it ends the output, after the values
    that differ where they are too long for it)."""
    line = output.strip().splitlines()[-1]
    assert output.count("error: ") == 1 and line.startswith("error: "), output
    return line


def test_checkpoints_hold_no_pickle_and_resume_from_the_cli(cli_run):
    model, out = cli_run
    step = out / "checkpoints" / "step-000002"
    assert sorted(p.suffix for p in step.iterdir()) <= [".json", ".md", ".safetensors"] * 10
    before = (out / "adapter_model.safetensors").read_bytes()
    result = _resume(model, out)
    assert result.exit_code == 0, result.output
    assert "2 steps" in result.output and (out / "adapter_model.safetensors").read_bytes() == before


@pytest.mark.parametrize("planted", ["custom_checkpoint_0.pkl", "optimizer.safetensors"])
def test_a_planted_pickle_is_refused_and_never_unpickled(cli_run, tmp_path, planted):
    model, source = cli_run
    out = tmp_path / "adapter"
    shutil.copytree(source, out)
    marker = tmp_path / "pwned"
    payload = pickle.dumps(_CreatesFile(marker), protocol=4)
    pickle.loads(pickle.dumps(_CreatesFile(tmp_path / "control"), protocol=4))  # the payload does run when unpickled
    assert (tmp_path / "control").exists()
    (out / "checkpoints" / "step-000002" / planted).write_bytes(payload)
    result = _resume(model, out)
    assert result.exit_code == 2
    assert not marker.exists()
    line = _error(result.output)
    assert "\n" not in line and planted in line and "unpickled" in line


@pytest.mark.parametrize(
    "change, field",
    [
        (("--task", "hate,humor"), "tasks"),
        (("--lr", "1e-3"), "train.learning_rate: 0.01 there, 0.001 now"),
        (("--lora-rank", "2"), "lora.rank: 8 there, 2 now"),
    ],
)
def test_resuming_with_another_configuration_is_refused_naming_the_field(cli_run, change, field):
    model, out = cli_run
    files = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    result = _resume(model, out, *change)
    assert result.exit_code == 2, result.output
    line = _error(result.output)
    assert "different run" in line and field in line and "\n" not in line
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == files
