"""A model server that hangs, trickles or floods costs a run seconds, not hours: each item is sent at most
1 + ``--retries`` times in all, ``--deadline`` ends the run's calls, ``--request-timeout`` bounds a whole
answer, ``--max-response-bytes`` cuts a huge one; and another ``--api-base`` is another run."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from api_server import BadServer
from typer.testing import CliRunner

from mmsoc.cli import app
from mmsoc.models.base import GenerationSettings, Request, Text

pytest.importorskip("openai")  # imported once here, so that the times below are the calls' own

ITEMS = 6
"""``hate`` items asked (sample data), one batch of the default 8."""


def _eval(url: str, out: Path, *extra: str) -> tuple[int, str, float]:
    """(exit code, output, seconds) of ``mmsoc eval`` on ``ITEMS`` hate items against ``url``."""
    command = ["eval", "--no-progress", "--fast-metrics", "--task", "hate", "--limit", str(ITEMS), "--greedy"]
    start = time.monotonic()
    result = CliRunner().invoke(app, [*command, "--model", "openai:m", "--api-base", url, "--out", str(out), *extra])
    return result.exit_code, result.output, time.monotonic() - start


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_hung_server_costs_each_item_its_retries_once_and_the_batch_seconds(tmp_path):
    with BadServer("hang") as server:
        code, output, seconds = _eval(server.url, tmp_path / "run", "--request-timeout", "1", "--retries", "1")
        calls = server.calls
    assert code == 1 and f"0 of {ITEMS} items succeeded; first error: generation failed: " in output, output
    # each item: its call in the batch and one retry, both timing out together; the item-by-item re-ask of the
    # failed batch sends nothing again (it sent each item's two attempts again, one item after another)
    assert calls == ITEMS * (1 + 1)
    assert seconds < 1 + 0.5 + 1 + 3  # two timeouts, one back-off of at most 0.5 s, and the run's own work
    problems = _lines(tmp_path / "run" / "problems.jsonl")
    assert len(problems) == ITEMS and all("after 2 attempts" in p["problem"] for p in problems)


def test_the_deadline_ends_the_calls_keeps_the_answers_and_records_the_rest(tmp_path):
    out = tmp_path / "run"
    with BadServer("hang", answered=2) as server:  # the first batch of 2 is answered, then the server hangs
        code, output, seconds = _eval(
            server.url, out, "--batch-size", "2", "--request-timeout", "60", "--deadline", "1.5"
        )
        calls = server.calls
    assert code == 0, output
    assert seconds < 1.5 + 0.5 + 3  # the deadline, at most one back-off after it, and the run's own work
    assert calls == 4  # the first two batches; the third is not sent
    assert [row["raw"] for row in _lines(out / "predictions.jsonl")] == ["yes", "yes"]
    problems = _lines(out / "problems.jsonl")
    assert len(problems) == ITEMS - 2 and all("deadline: --deadline 1.5 s passed" in p["problem"] for p in problems)
    runtime = json.loads((out / "runtime.json").read_text())["model"][0]
    assert (runtime["deadline"], runtime["request_timeout"], runtime["retries"]) == (1.5, 60.0, 6)


def test_a_huge_answer_is_cut_at_the_cap_and_recorded_not_stored(tmp_path):
    out = tmp_path / "run"
    with BadServer("huge", size=10 * 2**20) as server:  # 10 MiB replies; the default cap is 8 MiB
        code, output, _ = _eval(server.url, out)
        calls = server.calls
    assert code == 1 and f"0 of {ITEMS} items succeeded" in output, output
    assert calls == ITEMS  # a cut answer is not asked again
    assert _lines(out / "predictions.jsonl") == []
    problems = _lines(out / "problems.jsonl")
    assert len(problems) == ITEMS and all(f"response cut at {8 * 2**20} bytes" in p["problem"] for p in problems)


def test_a_trickled_answer_is_timed_out_as_a_whole():
    from mmsoc.models.registry import ModelOptions, make_model

    request = Request("t", "slow", (Text("Say yes."),))
    with BadServer("trickle") as server:  # one byte every 0.1 s: about 20 s for the whole answer
        model = make_model("openai:m", ModelOptions(api_base=server.url, timeout=0.5, retries=0))
        start = time.monotonic()
        with pytest.raises(OSError, match=r"item 'slow': no answer from .* after 1 attempts"):
            model.generate([request], GenerationSettings(greedy=True, max_new_tokens=4))
        assert time.monotonic() - start < 0.5 + 1


def test_another_server_is_another_run(tmp_path):
    out = tmp_path / "run"
    with BadServer("answer") as first, BadServer("answer") as second:
        assert _eval(first.url, out)[0] == 0
        code, output, _ = _eval(second.url, out)  # the same command but for --api-base: not resumed
        asked = second.calls
    assert code == 2 and "belongs to a different run" in output and "api_base" in output, output
    assert asked == 0
    assert json.loads((out / "config.json").read_text())["api_base"] == first.url


SERVER_FLAGS = {"--api-base", "--concurrency", "--request-timeout", "--retries", "--deadline", "--max-response-bytes"}


@pytest.mark.parametrize("command", ["mmsoc eval", "desiq eval"])
def test_both_eval_commands_take_the_server_flags(command):
    import typer

    from desiq.cli import app as desiq_app

    root = typer.main.get_command(app if command.startswith("mmsoc") else desiq_app)
    flags = {flag for param in root.commands["eval"].params for flag in getattr(param, "opts", [])}
    assert flags >= SERVER_FLAGS
