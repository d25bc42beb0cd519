"""The LLM notebook runs a tiny LLaVA-OneVision on the sample through every condition."""

from __future__ import annotations

import json

from tiny_video_models import build_llava_onevision

from desiq.llm.conditions import CONDITIONS
from notebooks import execute_notebook, printed


def test_llm_notebook_runs_every_condition(tmp_path):
    model = build_llava_onevision(tmp_path / "onevision")
    out = tmp_path / "runs"
    nb = execute_notebook(
        "desiq_llm.ipynb",
        tmp_path,
        {
            '"llava-hf/llava-onevision-qwen2-0.5b-ov-hf"': repr(str(model)),
            '"runs/desiq_llm"': repr(str(out)),
            "LIMIT = None": "LIMIT = 8",
            "NUM_FRAMES = 8": "NUM_FRAMES = 4",
        },
        timeout=600,
    )
    text = printed(nb)
    # 8 questions: 32 answers (8 A4 + 24 A2) under each of 9 conditions, 80 under circular (8 x 4 + 24 x 2 rotations)
    assert "q+a+t+v: 368 answers, video given as video" in text and "a: 32 answers" in text
    assert all(f"| {condition} |" in text for condition in CONDITIONS) and "Position bias" in text
    metrics = json.loads((out / "run_q+a+t+v" / "metrics.json").read_text())
    assert f"chosen: {metrics['position']['chosen']}" in text
    assert "| a | " in text and "| q+a+t+v | " in text  # the comparison of input settings
