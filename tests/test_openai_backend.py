"""The OpenAI-compatible backend: end to end against a real ``transformers serve`` on a tiny LLaVA (killed and
restarted mid-run, a 500 answered once, a call that keeps failing; behind a proxy that records when each call
arrives and is answered: each media group's leader first; the context budget), and its request building and
scoring arithmetic on hand-worked cases."""

from __future__ import annotations

import base64
import io
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from api_server import CHILD_ENV, SERVING_MISSING, SKIP_REASON, FailingProxy, ServeProcess, servable_copy
from PIL import Image as PILImage
from typer.testing import CliRunner

from mmsoc.cli import app
from mmsoc.models.backends.api_content import VIDEO_FRAMES, content, continuation_loglik, decoding
from mmsoc.models.backends.api_dispatch import grouped, shared_prefix
from mmsoc.models.base import CannotScore, GenerationSettings, Image, Request, Text, Video

needs_server = pytest.mark.skipif(bool(SERVING_MISSING), reason=SKIP_REASON)
KEY = "sk-mmsoc-test-7f3a9c1e5b"
TASKS = ("--task", "hate,ocr,sentiment", "--limit", "16", "--greedy", "--max-new-tokens", "6")
"""48 work items: enough that the server is killed while the run is under way."""


@pytest.fixture(scope="module")
def served(tiny_llava, tmp_path_factory):
    server = ServeProcess(servable_copy(tiny_llava, tmp_path_factory.mktemp("serve") / "tiny-llava")).start()
    yield server
    server.kill()


@pytest.fixture(scope="module")
def reference(served, tmp_path_factory) -> dict:
    """(task, id) -> raw response of the in-process transformers backend on the same model folder."""
    out = tmp_path_factory.mktemp("reference")
    result = CliRunner().invoke(
        app, ["eval", "--no-progress", "--fast-metrics", *TASKS, "--model", str(served.model_dir), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    return {(row["task"], row["id"]): row["raw"] for row in _rows(out)}


def _rows(run: Path) -> list[dict]:
    path = run / "predictions.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _command(served: ServeProcess, out: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "mmsoc",
        "eval",
        "--no-progress",
        "--fast-metrics",
        *TASKS,
        "--model",
        f"openai:{served.model_dir}",
        "--api-base",
        served.url,
        "--batch-size",
        "4",
        "--concurrency",
        "2",
        "--out",
        str(out),
        *extra,
    ]


def _start_and_kill_server_after(served: ServeProcess, command: list[str], out: Path, rows: int) -> subprocess.Popen:
    """Start the run; SIGKILL the server once ``rows`` predictions are logged."""
    run = subprocess.Popen(
        command, env={**CHILD_ENV, "MMSOC_API_KEY": KEY}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    deadline = time.monotonic() + 300
    while len(_rows(out)) < rows and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    served.kill()
    return run


def _no_key_in(folder: Path) -> None:
    for path in folder.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


@needs_server
@pytest.mark.slow
def test_server_killed_mid_run_failures_recorded_then_rerun_resumes_with_nothing_lost(served, reference, tmp_path):
    out = tmp_path / "run"
    command = _command(served, out, "--retries", "0")
    first = _start_and_kill_server_after(served, command, out, rows=4)
    log, _ = first.communicate(timeout=300)
    assert first.returncode == 0, log  # unanswered calls are problems, not a crash
    before = _rows(out)
    problems = [json.loads(line) for line in (out / "problems.jsonl").read_text().splitlines()]
    assert 4 <= len(before) < len(reference), "the server was not killed mid-run"
    assert len(before) + len(problems) == len(reference)
    assert all("no answer from" in p["problem"] and p["id"] in p["problem"] for p in problems)

    served.start()
    second = subprocess.run(
        command, env={**CHILD_ENV, "MMSOC_API_KEY": KEY}, capture_output=True, text=True, check=False, timeout=600
    )
    assert second.returncode == 0, second.stdout + second.stderr
    after = _rows(out)
    assert len(after) == len(reference) and all(row in after for row in before)  # earlier predictions kept as they were
    assert json.loads((out / "runtime.json").read_text())["predicted"] == [len(reference) - len(before)]
    assert {(r["task"], r["id"]): r["raw"] for r in after} == reference  # the server's answers are the model's
    assert (out / "problems.jsonl").read_text() == ""
    _no_key_in(out)


@needs_server
@pytest.mark.slow
def test_run_rides_out_a_server_restart_by_retrying(served, reference, tmp_path):
    out = tmp_path / "run"
    run = _start_and_kill_server_after(served, _command(served, out, "--retries", "10"), out, rows=4)
    assert run.poll() is None, "the run ended before the server was killed"
    served.start()
    log, _ = run.communicate(timeout=600)
    assert run.returncode == 0, log
    assert {(r["task"], r["id"]): r["raw"] for r in _rows(out)} == reference
    assert (out / "problems.jsonl").read_text() == ""


@needs_server
def test_a_500_is_retried_and_a_call_that_keeps_failing_is_recorded_as_a_problem(
    served, reference, tmp_path, monkeypatch
):
    once, always = Request("hate", "10042", ()).rng_seed, Request("hate", "10043", ()).rng_seed
    monkeypatch.setenv("MMSOC_API_KEY", KEY)
    out = tmp_path / "run"
    with FailingProxy(served.url, fail_once={once}, fail_always={always}) as proxy:
        result = CliRunner().invoke(
            app,
            [
                "eval",
                "--no-progress",
                "--fast-metrics",
                "--task",
                "hate",
                "--limit",
                "4",
                "--greedy",
                "--max-new-tokens",
                "6",
                "--model",
                f"openai:{served.model_dir}",
                "--api-base",
                proxy.url,
                "--retries",
                "2",
                "--out",
                str(out),
            ],
        )
    assert result.exit_code == 0, result.output
    raw = {r["id"]: r["raw"] for r in _rows(out)}
    assert raw == {i: reference[("hate", i)] for i in ("10041", "10042", "10044")}
    assert proxy.seeds.count(once) == 2  # one 500, then the answer (kept when its batch-mate failed)
    assert proxy.seeds.count(always) == 3  # 3 attempts in the batch, none more when the loop asks it alone
    problems = [json.loads(line) for line in (out / "problems.jsonl").read_text().splitlines()]
    assert len(problems) == 1 and problems[0]["id"] == "10043"
    assert "'10043'" in problems[0]["problem"] and "answered 500 after 3 attempts" in problems[0]["problem"]
    assert proxy.auth == {f"Bearer {KEY}"}  # the key was sent, and written nowhere
    _no_key_in(out)


@needs_server
def test_option_scoring_without_prompt_logprobs_asks_for_generate(served):
    from mmsoc.models.registry import ModelOptions, make_model

    model = make_model(f"openai:{served.model_dir}", ModelOptions(api_base=served.url, retries=0))
    request = Request("hate", "1", (Text("Is it hateful?"),))
    with pytest.raises(CannotScore, match=r"does not return prompt log-probabilities.*--answer generate"):
        model.score_options([request], [["yes", "no"]])


@pytest.mark.skipif("openai" in SERVING_MISSING, reason=SKIP_REASON)
def test_an_unreachable_server_is_one_line_and_claims_no_folder(tmp_path, free_port_url):
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        [
            "eval",
            "--task",
            "hate",
            "--limit",
            "1",
            "--greedy",
            "--model",
            "openai:m",
            "--api-base",
            free_port_url,
            "--retries",
            "0",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 2 and "cannot reach" in result.output and "--api-base" in result.output
    assert not (out / "config.json").exists()


@pytest.fixture
def free_port_url() -> str:
    from api_server import free_port

    return f"http://127.0.0.1:{free_port()}/v1"


@pytest.mark.parametrize(
    ("model", "extra", "message"),
    [
        ("openai:m", [], "needs --api-base"),
        ("openai:", ["--api-base", "http://127.0.0.1:9/v1"], "name the served model"),
        ("random", ["--api-base", "http://127.0.0.1:9/v1"], "--api-base applies to a model on a server"),
    ],
)
def test_api_flags_are_checked(tmp_path, model, extra, message):
    result = CliRunner().invoke(
        app,
        [
            "eval",
            "--task",
            "hate",
            "--limit",
            "1",
            "--greedy",
            "--model",
            model,
            *extra,
            "--out",
            str(tmp_path / "run"),
        ],
    )
    assert result.exit_code == 2 and message in result.output, result.output


def test_parts_become_content_parts_in_order_with_media_as_data_urls(tmp_path):
    image = tmp_path / "a.png"
    PILImage.new("RGB", (5, 4), (200, 10, 10)).save(image)
    frames = tmp_path / "frames"
    frames.mkdir()
    for k in range(12):
        PILImage.new("RGB", (16, 8), (k * 20, 0, 0)).save(frames / f"{k:03d}.png")
    parts = content((Text("before"), Image(str(image)), Video(str(frames)), Text("after")))
    assert [p["type"] for p in parts] == ["text", "image_url"] + ["image_url"] * VIDEO_FRAMES + ["text"]
    assert parts[0]["text"] == "before" and parts[-1]["text"] == "after"
    header, data = parts[1]["image_url"]["url"].split(",", 1)
    assert header == "data:image/png;base64" and base64.b64decode(data) == image.read_bytes()
    reds = []
    for part in parts[2:-1]:
        header, data = part["image_url"]["url"].split(",", 1)
        assert header == "data:image/jpeg;base64"
        frame = np.asarray(PILImage.open(io.BytesIO(base64.b64decode(data))))
        assert frame.shape == (8, 16, 3)
        reds.append(int(frame[..., 0].mean()))
    expected = np.unique(np.linspace(0, 11, VIDEO_FRAMES).round().astype(int)) * 20  # uniform frame indices
    assert np.all(np.abs(np.array(reds) - expected) <= 2)  # JPEG keeps a flat colour within a level or two


def test_unreadable_media_is_a_value_error_naming_the_file(tmp_path):
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not an image")
    with pytest.raises(ValueError, match=r"bad\.png"):
        content((Image(str(bad)),))
    with pytest.raises(ValueError, match="missing"):
        content((Video(str(tmp_path / "none.mp4")),))


def test_decoding_fields_greedy_and_nucleus():
    request = Request("hate", "7", (), seed=2)
    greedy = decoding(GenerationSettings(greedy=True, max_new_tokens=9), request)
    assert greedy == {"max_tokens": 9, "seed": request.rng_seed, "temperature": 0.0}
    sampled = decoding(GenerationSettings(max_new_tokens=5, top_p=0.8, temperature=0.7), request)
    assert sampled == {"max_tokens": 5, "seed": request.rng_seed, "temperature": 0.7, "top_p": 0.8}
    assert request.rng_seed != Request("hate", "7", (), seed=1).rng_seed < 2**63


def test_option_loglik_from_vllm_prompt_logprobs_hand_worked():
    def entry(token: int, logprob: float, **others: float) -> dict:
        return {
            str(token): {"logprob": logprob, "rank": 1, "decoded_token": "x"},
            **{k: {"logprob": v, "rank": 2, "decoded_token": "y"} for k, v in others.items()},
        }

    logprobs = [None, entry(2, -1.0), entry(3, -2.0), entry(7, -0.5, **{"9": -0.1}), entry(8, -0.25)]
    # prompt [1 2 3], prompt + option [1 2 3 7 8]: the option is tokens 7 and 8
    assert continuation_loglik((3, [1, 2, 3]), [1, 2, 3, 7, 8], logprobs, "x") == pytest.approx(-0.75)
    # the tokenizer merged the boundary: the prompt's last token 3 became 4 -> positions 2..4
    merged = [None, entry(2, -1.0), entry(4, -3.0), entry(7, -0.5), entry(8, -0.25)]
    assert continuation_loglik((3, [1, 2, 3]), [1, 2, 4, 7, 8], merged, "x") == pytest.approx(-3.75)
    # no token ids from the server: the context's length, one entry per position
    assert continuation_loglik(
        (3, None), None, [None, entry(2, -1.0), entry(3, -2.0), entry(7, -0.5)], "x"
    ) == pytest.approx(-0.5)
    with pytest.raises(ValueError, match=r"item 5: .*lack the prompt token"):
        continuation_loglik((3, None), None, logprobs, "item 5")


# prefix-cache order and the context budget ---------------------------------------------------------------------
SETTINGS = GenerationSettings(greedy=True, max_new_tokens=4)
QUESTIONS = ("What is shown?", "Is it red or blue?", "Describe the colours.")


def _media_requests(tmp_path: Path) -> tuple[list[Request], list[list[Request]]]:
    """Three images asked three questions each, interleaved (image 0, 1, 2, then again), and a text-only request
    among them; and the requests of each image."""
    images = []
    for k, colour in enumerate(((220, 30, 30), (30, 30, 220), (30, 200, 30))):
        images.append(str(tmp_path / f"image{k}.png"))
        PILImage.new("RGB", (12, 10), colour).save(images[-1])
    requests = [Request("t", f"{k}-{q}", (Image(images[k]), Text(QUESTIONS[q]))) for q in range(3) for k in range(3)]
    requests.insert(4, Request("t", "alone", (Text("Say something."),)))
    return requests, [[r for r in requests if r.images == (path,)] for path in images]


def _api_model(served: ServeProcess, url: str, **options):
    from mmsoc.models.registry import ModelOptions, make_model

    return make_model(f"openai:{served.model_dir}", ModelOptions(api_base=url, retries=0, **options))


def _at(events: list, kind: str, request: Request) -> int:
    return next(k for k, (what, seed, _) in enumerate(events) if what == kind and seed == request.rng_seed)


def _assert_leader_first(events: list, groups: list[list[Request]], calls_per_request: int = 1) -> None:
    """Each group's first request in caller order arrives first of its group, and its answer is ready before any
    other call of its group arrives."""
    for group in groups:
        leader, followers = group[0], {r.rng_seed for r in group}
        first_arrival = min(k for k, (what, seed, _) in enumerate(events) if what == "arrive" and seed in followers)
        assert first_arrival == _at(events, "arrive", leader)
        finished = _at(events, "finish", leader)
        later = [k for k, (what, seed, _) in enumerate(events) if what == "arrive" and seed in followers]
        assert len(later) == len(group) * calls_per_request
        assert all(k > finished and events[k][2] >= events[finished][2] for k in later if k != first_arrival)


@needs_server
def test_each_media_group_sends_its_leader_first_and_answers_keep_the_input_order(served, tmp_path):
    requests, groups = _media_requests(tmp_path)
    with FailingProxy(served.url) as proxy:
        model = _api_model(served, proxy.url, concurrency=4)
        answers = model.generate(requests, SETTINGS)
        events = list(proxy.events)
        counts = (model.requests_sent, model.prefix_leaders, model.prefix_followers)
        one_by_one = [model.generate([request], SETTINGS)[0] for request in requests]  # no order, no groups
    assert answers == one_by_one and len(set(answers)) > 1
    assert counts == (10, 3, 6)  # 3 leaders, 2 followers each, and the text-only request alone
    _assert_leader_first(events, groups)


@needs_server
def test_one_call_at_a_time_the_leaders_go_first_then_each_group_together(served, tmp_path):
    requests, _ = _media_requests(tmp_path)
    with FailingProxy(served.url) as proxy:
        _api_model(served, proxy.url, concurrency=1).generate(requests, SETTINGS)
    by_seed: dict[int | None, str] = {r.rng_seed: r.id for r in requests}
    arrived = [by_seed[seed] for what, seed, _ in proxy.events if what == "arrive"]
    assert arrived == ["0-0", "1-0", "2-0", "alone", "0-1", "0-2", "1-1", "1-2", "2-1", "2-2"]


@needs_server
def test_option_scoring_calls_wait_for_their_groups_leader_too(served, tmp_path):
    requests, groups = _media_requests(tmp_path)
    media = [r for r in requests if r.id != "alone"]
    with FailingProxy(served.url) as proxy:
        model = _api_model(served, proxy.url, concurrency=4)
        with pytest.raises(CannotScore):  # transformers serve returns no prompt log-probabilities
            model.score_options(media, [["red", "blue"]] * len(media))
    # per question: its prompt's call, then one per option; each group's first call alone before the other 8
    assert (model.requests_sent, model.prefix_leaders, model.prefix_followers) == (27, 3, 24)
    _assert_leader_first(list(proxy.events), groups, calls_per_request=3)


@needs_server
def test_max_context_refuses_an_over_long_request_by_estimate_and_lets_a_short_one_through(served):
    long, short = Request("t", "long-one", (Text("x" * 41),)), Request("t", "short-one", (Text("y" * 20),))
    with FailingProxy(served.url) as proxy:  # transformers serve has no /tokenize
        model = _api_model(served, proxy.url, max_context=15)
        assert "an estimate, ceil(characters / 4)" in model.description
        # ceil(41 / 4) = 11 tokens of text + 4 new = 15 fits; ceil(20 / 4) = 5 + 4 = 9 fits
        model.generate([long, short], SETTINGS)
        with pytest.raises(
            ValueError,
            match=r"item 'long-one': 16 tokens, over --max-context 15: 11 of prompt text \(an estimate.*\) \+ 5 new",
        ):
            model.generate([long, short], GenerationSettings(greedy=True, max_new_tokens=5))
        sent = list(proxy.seeds)
        with pytest.raises(
            ValueError,
            match=r"item 'short-one': 16 tokens, .*: 5 of prompt text \(an estimate.*\) \+ 11 of its longest option",
        ):
            model.score_options([short], [["o" * 41, "p"]])
        with pytest.raises(CannotScore):  # 5 + ceil(40 / 4) = 15 fits: asked, and this server cannot score
            model.score_options([short], [["o" * 40, "p"]])
    assert sent.count(long.rng_seed) == 1 and sent.count(short.rng_seed) == 2  # the refused call was not sent


@needs_server
def test_max_context_counts_with_the_servers_tokenize_where_it_has_one(served):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(served.model_dir)

    def count(text: str, special: bool) -> int:  # what vLLM's /tokenize answers: the served model's tokenizer
        return len(tokenizer(text, add_special_tokens=special).input_ids)

    text = "zebra quartz jigsaw " * 6
    exact = count(text, True)
    assert exact != -(-len(text) // 4)  # so the count in the message shows which was used
    request = Request("t", "counted", (Text(text),))
    with FailingProxy(served.url, tokenize=count) as proxy:
        tight = _api_model(served, proxy.url, max_context=exact + 3)
        assert "counted by the server's /tokenize" in tight.description
        with pytest.raises(
            ValueError,
            match=rf"item 'counted': {exact + 4} tokens, .*: {exact} of prompt text \(counted by the server's",
        ):
            tight.generate([request], SETTINGS)
        assert proxy.seeds == []
        assert len(_api_model(served, proxy.url, max_context=exact + 4).generate([request], SETTINGS)) == 1


def test_the_shared_prefix_is_what_comes_before_the_question():
    video, image, question = Video("v.mp4"), Image("a.png"), Text("Why?")
    assert shared_prefix(Request("t", "1", (video, Text("Context: ...\nWhy?")))) == (video,)
    assert shared_prefix(Request("t", "1", (Text("Look:"), image, question))) == (Text("Look:"), image)
    assert shared_prefix(Request("t", "1", (question, image))) is None  # the question comes first: nothing shared
    assert shared_prefix(Request("t", "1", (question,))) is None
    assert grouped([("a",), None, ("b",), ("a",), None, ("b",)]) == [[0, 3], [1], [2, 5], [4]]
