"""The fine-tuning notebook trains a tiny LLaVA on the sample and evaluates base and adapter."""

from __future__ import annotations

import json

from notebooks import execute_notebook, printed


def test_finetune_notebook_trains_and_evaluates(tiny_llava, tmp_path):
    nb = execute_notebook(
        "mmsoc_finetune.ipynb",
        tmp_path,
        {
            '"llava-hf/llava-1.5-7b-hf"': repr(str(tiny_llava)),
            '"runs/finetune"': repr(str(tmp_path / "runs")),
            'TASKS = ("hate", "humor")': 'TASKS = ("hate",)',
            "TRAIN_LIMIT = None": "TRAIN_LIMIT = 24",
            "TEST_LIMIT = 16": "TEST_LIMIT = 8",
            "EPOCHS = 1": "EPOCHS = 12",
            "BATCH_SIZE = 16": "BATCH_SIZE = 8",
            "MICRO_BATCH_SIZE = 4": "MICRO_BATCH_SIZE = 8",
            "LEARNING_RATE = 2e-4": "LEARNING_RATE = 1e-2",
            "MAX_NEW_TOKENS = 16": "MAX_NEW_TOKENS = 4",
            '("q_proj", "k_proj", "v_proj", "o_proj")': '("q_proj", "v_proj", "lm_head")',
        },
        timeout=300,
    )
    text = printed(nb)
    assert "24 training pairs, 0 skipped" in text and "36 steps" in text, text
    assert "hate     base" in text and "hate     tuned" in text
    runs = tmp_path / "runs"
    log = [json.loads(line) for line in (runs / "adapter/train_log.jsonl").read_text().splitlines()]
    assert [row["step"] for row in log] == list(range(1, 37)) and log[-1]["loss"] < 0.25 * log[0]["loss"]
    base = json.loads((runs / "eval_base/metrics.json").read_text())["hate"]
    tuned = json.loads((runs / "eval_tuned/metrics.json").read_text())["hate"]
    assert base["n"] == tuned["n"] == 8
    assert base["success_rate"] <= 0.25 and tuned["success_rate"] >= 0.875  # strict: the paper's success rate
    assert json.loads((runs / "eval_tuned/config.json").read_text())["adapter"] == str(runs / "adapter")
