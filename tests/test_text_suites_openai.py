"""Text-only requests (SocKET, SuperTweetEval) through the OpenAI-compatible backend against a real
``transformers serve``, and through the in-process image-text backend: no item is skipped for want of an
image, and both answer alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from api_server import SERVING_MISSING, SKIP_REASON, ServeProcess, servable_copy
from typer.testing import CliRunner

from mmsoc.cli import app
from mmsoc.models.backends.api_content import content
from mmsoc.tasks import get_task, kind_of
from mmsoc.tasks.data import load_examples

TASKS = ("--task", "sarc,emobank#valence,toxic-span", "--limit", "3", "--greedy", "--max-new-tokens", "5")


def test_a_text_request_is_one_text_part():
    spec = get_task("socket/sarc")
    example = load_examples(spec.id, "sample").examples[0]
    request = kind_of(spec).request(spec, example, spec.prompt)
    assert content(request.parts) == [{"type": "text", "text": request.prompt}]
    assert request.prompt.startswith('Question: For the sentence: "') and request.prompt.endswith("options. Answer:")


def _rows(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]


@pytest.mark.slow
@pytest.mark.skipif(bool(SERVING_MISSING), reason=SKIP_REASON)
def test_openai_backend_and_image_text_backend_answer_text_tasks_alike(tiny_llava, tmp_path):
    server = ServeProcess(servable_copy(tiny_llava, tmp_path / "tiny-llava")).start()
    try:
        remote = CliRunner().invoke(
            app,
            [
                "eval",
                "--no-progress",
                "--fast-metrics",
                "--suite",
                "socket",
                *TASKS,
                "--model",
                f"openai:{server.model_dir}",
                "--api-base",
                server.url,
                "--out",
                str(tmp_path / "remote"),
            ],
        )
        assert remote.exit_code == 0, remote.output
    finally:
        server.kill()
    local = CliRunner().invoke(
        app,
        [
            "eval",
            "--no-progress",
            "--fast-metrics",
            "--suite",
            "socket",
            *TASKS,
            "--model",
            str(server.model_dir),
            "--out",
            str(tmp_path / "local"),
        ],
    )
    assert local.exit_code == 0, local.output
    for run in ("remote", "local"):
        assert not (tmp_path / run / "problems.jsonl").read_text().strip()
        assert len(_rows(tmp_path / run)) == 9
    assert [r["raw"] for r in _rows(tmp_path / "remote")] == [r["raw"] for r in _rows(tmp_path / "local")]
