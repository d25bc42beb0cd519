"""The zero-shot notebook runs on the sample (its model parameter set to a tiny LLaVA folder)."""

from __future__ import annotations

from notebooks import execute_notebook, printed


def test_zero_shot_notebook_executes(tiny_llava, tmp_path):
    nb = execute_notebook(
        "mmsoc_zero_shot.ipynb",
        tmp_path,
        {
            '"llava-hf/llava-1.5-7b-hf"': repr(str(tiny_llava)),
            '"runs/zero_shot"': repr(str(tmp_path / "runs")),
            "LIMIT = 8": "LIMIT = 3",
        },
        timeout=300,
    )
    text = printed(nb)
    assert "hate" in text and "success=" in text and "parsed=" in text
    assert (tmp_path / "runs/model/metrics.json").exists() and (tmp_path / "runs/random/metrics.json").exists()
