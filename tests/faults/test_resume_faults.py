"""Resuming a fine-tuning run with another configuration (issue item 6): refused with one line naming
each field that differs, the folder untouched; another LoRA rank is named too, not a size-mismatch
traceback. In-process variants: tests/test_finetune_resume.py."""

from __future__ import annotations

import shutil

import pytest

from .harness import FINETUNE, files, run

pytestmark = pytest.mark.slow  # long end-to-end runs: `pytest -m slow`


@pytest.mark.parametrize(
    "change, field",
    [(("--task", "hate,humor"), "tasks"), (("--lr", "1e-3"), "learning_rate"), (("--lora-rank", "2"), "rank")],
    ids=["tasks", "learning rate", "lora rank"],
)
def test_resuming_with_another_configuration_is_refused(change, field, adapter, tiny_dirs, scratch, cache, tmp_path):
    out = shutil.copytree(adapter, tmp_path / "adapter")
    before = files(out)
    result = run(
        "mmsoc",
        *FINETUNE,
        "--model",
        tiny_dirs["llava"],
        "--out",
        str(out),
        "--resume",
        *change,
        cwd=scratch,
        cache=cache,
    )
    line = result.error_line()
    assert "different run" in line and field in line
    assert files(out) == before
