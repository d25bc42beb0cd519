"""A server that answers 200 with a malformed reply costs its item, never the run: each reply is read against our
own schema, a reply that does not fit fails its item with the reason (asked once, not retried), every other item
is answered, and the exit status says what the run came to (none succeeded: 1; some failed: 0 and how many;
more than --max-failures: 1). Random JSON replies (hypothesis) never end in a traceback."""

from __future__ import annotations

import contextlib
import json
import math
from pathlib import Path

import pytest
from api_server import ScriptedServer, choice, completion
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from mmsoc.models.base import CannotScore, GenerationSettings, OptionScores, Request, Text

pytest.importorskip("openai")

SETTINGS = GenerationSettings(greedy=True, max_new_tokens=4)
NAN = float("nan")
RECORDED = (OSError, ValueError)
"""What the evaluation loops catch and record as an item's problem."""
MALFORMED = {
    "a number as content": (completion([choice(3.5)]), r"content\.str: Input should be a valid string"),
    "no choices": (completion([]), "one choice was asked for, the reply has 0"),
    "two choices": (completion([choice("yes"), choice("no")]), "one choice was asked for, the reply has 2"),
    "null content": (completion([choice(None)]), r"no content \(null\)"),
    "no text among the parts": (completion([choice([{"type": "image_url"}])]), r"hold no text \(types: image_url\)"),
    "a text part without text": (completion([choice([{"type": "text"}])]), "content"),
    "no choices field": (json.dumps({"id": "c", "object": "chat.completion"}).encode(), "choices: Field required"),
    "a list": (b"[1, 2]", "Input should be an object"),
    "not JSON": (b"<html>busy</html>", "Invalid JSON"),
    "a choice without its message": (completion([{"index": 0}]), r"choices\.0\.message: Field required"),
}


def _model(url: str):
    from mmsoc.models.registry import ModelOptions, make_model

    return make_model("openai:m", ModelOptions(api_base=url, retries=2))


def _request(item: str = "1") -> Request:
    return Request("t", item, (Text("Is it yes?"),))


@pytest.mark.parametrize("body, reason", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_reply_fails_its_item_with_the_reason_and_is_not_asked_again(body, reason):
    with ScriptedServer(lambda call: body) as server:
        model = _model(server.url)
        with pytest.raises(OSError, match=rf"item '1': malformed reply: .*{reason}"):
            model.generate([_request()], SETTINGS)
        with pytest.raises(OSError, match="malformed reply"):  # the loop's re-ask of the item: nothing sent
            model.generate([_request()], SETTINGS)
        assert len(server.calls) == 1  # with --retries 2: a malformed 200 is not retried


def test_a_well_formed_reply_is_read_whether_a_string_or_content_parts():
    parts = [
        {"type": "text", "text": " ye"},
        {"type": "image_url", "image_url": {"url": "x"}},
        {"type": "text", "text": "s "},
    ]
    replies = {"a": completion([choice(" yes\n")]), "b": completion([choice(parts)])}
    with ScriptedServer(lambda call: replies[call["messages"][0]["content"][0]["text"]]) as server:
        model = _model(server.url)
        asked = [Request("t", item, (Text(item),)) for item in ("a", "b")]
        assert model.generate(asked, SETTINGS) == ["yes", "yes"]


# option scoring: vLLM's prompt_logprobs and token ids ----------------------------------------------------------
def _position(token: int, logprob: object) -> dict:
    return {str(token): {"logprob": logprob, "rank": 1, "decoded_token": "x"}}


def _scoring(option_reply: dict, prompt_reply: dict | None = None):
    """The replies of a server scoring options: the prompt alone has token ids 1 2 3; ``option_reply[option]``
    is the reply to the prompt followed by that option (vLLM's fields)."""
    prompt = prompt_reply if prompt_reply is not None else {"prompt_token_ids": [1, 2, 3]}

    def reply(call: dict) -> bytes:
        if "prompt_logprobs" not in call:
            return completion([choice("x")], **prompt)
        return completion([choice("x")], **option_reply[call["messages"][-1]["content"][0]["text"]])

    return reply


GOOD = {
    "a": {
        "prompt_token_ids": [1, 2, 3, 7],
        "prompt_logprobs": [None, _position(2, -1.0), _position(3, -2.0), _position(7, -0.5)],
    },
    "b": {
        "prompt_token_ids": [1, 2, 3, 8, 9],
        "prompt_logprobs": [None, _position(2, -1.0), _position(3, -2.0), _position(8, -0.25), _position(9, -1.0)],
    },
}


def test_option_scores_read_from_well_formed_prompt_logprobs_hand_worked():
    with ScriptedServer(_scoring(GOOD)) as server:
        scores = _model(server.url).score_options([_request()], [("a", "b")])
    assert scores == [OptionScores((-0.5, -1.25), (1, 1))]  # a: token 7; b: tokens 8 and 9


def _with(option: str, **fields: object) -> dict:
    return {**GOOD, option: {**GOOD[option], **fields}}


SCORING_MALFORMED = {
    "a NaN log-probability": (
        _with("b", prompt_logprobs=[None, _position(2, -1.0), _position(3, -2.0), _position(8, NAN), _position(9, -1)]),
        None,
        r"prompt_logprobs\.3\.8\.logprob: Input should be a finite number",
    ),
    "a log-probability as a string": (
        _with("a", prompt_logprobs=[None, _position(2, -1.0), _position(3, -2.0), _position(7, "-0.5")]),
        None,
        "logprob: Input should be a valid number",
    ),
    "fewer positions than tokens": (
        _with("a", prompt_token_ids=[1, 2, 3, 7, 7]),
        None,
        "4 prompt_logprobs positions for 5 prompt_token_ids",
    ),
    "positions that end before the option": (
        _with("a", prompt_token_ids=[1, 2], prompt_logprobs=[None, _position(2, -1.0)]),
        None,
        "prompt_logprobs end at position 2, before the option",
    ),
    "a prompt without its length": (GOOD, {"usage": None}, "neither prompt_token_ids nor usage.prompt_tokens"),
    "negative token ids": (GOOD, {"prompt_token_ids": [1, -2, 3]}, "greater than or equal to 0"),
}


@pytest.mark.parametrize("options, prompt, reason", SCORING_MALFORMED.values(), ids=SCORING_MALFORMED.keys())
def test_a_malformed_scoring_reply_fails_its_item_with_the_reason(options, prompt, reason):
    with ScriptedServer(_scoring(options, prompt)) as server, pytest.raises(RECORDED, match=rf"item '1': .*{reason}"):
        _model(server.url).score_options([_request()], [("a", "b")])


# random replies -----------------------------------------------------------------------------------------------
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 2**70) | st.floats() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)
PART = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "image_url", "refusal"]) | JSON}, optional={"text": st.text(max_size=4) | JSON}
)
CONTENT = st.text(max_size=6) | st.none() | st.lists(PART, max_size=3) | JSON
CHOICE = st.fixed_dictionaries(
    {}, optional={"message": st.fixed_dictionaries({}, optional={"content": CONTENT}) | JSON}
)
LOGPROB = st.fixed_dictionaries({}, optional={"logprob": st.floats() | JSON}) | JSON
POSITION = st.none() | st.dictionaries(st.sampled_from(["1", "2", "3", "7", "x"]), LOGPROB, max_size=2) | JSON
REPLY = st.fixed_dictionaries(
    {},
    optional={
        "choices": st.lists(CHOICE, max_size=3) | JSON,
        "usage": st.fixed_dictionaries({}, optional={"prompt_tokens": st.integers(-2, 6) | JSON}) | JSON,
        "prompt_token_ids": st.lists(st.integers(-1, 9), max_size=6) | JSON,
        "prompt_logprobs": st.lists(POSITION, max_size=6) | JSON,
    },
)
BODIES = REPLY.map(lambda reply: json.dumps(reply).encode()) | JSON.map(lambda value: json.dumps(value).encode())


def test_random_replies_end_each_item_answered_or_failed_never_in_a_traceback():
    body = [b""]
    asked = iter(range(10**6))  # each example asks a new item: no answer or failure remembered from another
    with ScriptedServer(lambda call: body[0]) as server:
        model = [_model(server.url)]

        @settings(max_examples=60, deadline=None, database=None, derandomize=True)
        @given(BODIES | st.binary(max_size=12))
        def check(reply: bytes) -> None:
            body[0] = reply
            request = _request(str(next(asked)))
            with contextlib.suppress(*RECORDED):
                assert [type(answer) for answer in model[0].generate([request], SETTINGS)] == [str]
            try:
                (scores,) = model[0].score_options([request], [("a", "b")])
                assert len(scores.loglik) == 2 and all(math.isfinite(value) for value in scores.loglik)
            except CannotScore:
                model[0] = _model(server.url)  # a model stops scoring once its server could not: a new one
            except RECORDED:
                pass

        check()


# what a run of malformed replies comes to ---------------------------------------------------------------------
ITEMS = 6
SHAPES = list(MALFORMED.values())


def _malformed_where_odd(call: dict) -> bytes:
    """``yes`` for an even seed, else one of the malformed replies (chosen by the seed)."""
    seed = call["seed"]
    return completion([choice("yes")]) if seed % 2 == 0 else SHAPES[seed // 2 % len(SHAPES)][0]


def _eval(url: str, out: Path, *extra: str):
    from mmsoc.cli import app

    command = ["eval", "--no-progress", "--fast-metrics", "--task", "hate", "--limit", str(ITEMS), "--greedy"]
    return CliRunner().invoke(app, [*command, "--model", "openai:m", "--api-base", url, "--out", str(out), *extra])


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_run_of_only_malformed_replies_exits_1_and_records_each_reason(tmp_path):
    out = tmp_path / "run"
    with ScriptedServer(lambda call: SHAPES[call["seed"] % len(SHAPES)][0]) as server:
        result = _eval(server.url, out)
        shapes = {call["seed"] % len(SHAPES) for call in server.calls}
    assert result.exit_code == 1, result.output
    assert f"error: 0 of {ITEMS} items succeeded; first error: generation failed: openai:m request" in result.output
    assert "Traceback" not in result.output
    problems = _lines(out / "problems.jsonl")
    assert len(problems) == ITEMS and all("malformed reply" in p["problem"] for p in problems)
    assert {k for k, (_, reason) in enumerate(SHAPES) for p in problems if _matches(reason, p["problem"])} >= shapes
    assert json.loads((out / "runtime.json").read_text())["failed_items"] == ITEMS


def _matches(reason: str, text: str) -> bool:
    import re

    return re.search(reason, text) is not None


def test_some_failed_items_exit_0_and_say_how_many_unless_over_max_failures(tmp_path):
    out = tmp_path / "run"
    with ScriptedServer(_malformed_where_odd) as server:
        first = _eval(server.url, out)
        odd = {call["seed"] for call in server.calls if call["seed"] % 2}
        assert 0 < len(odd) < ITEMS  # the sample's seeds give both
        server.calls.clear()
        over = _eval(server.url, out, "--max-failures", str(len(odd) - 1))  # resumed: the failed items asked again
        again = {call["seed"] for call in server.calls}
        within = _eval(server.url, out, "--max-failures", f"{100 * len(odd) / ITEMS}%")
    said = f"{len(odd)} of {ITEMS} items failed"
    assert first.exit_code == 0 and f"{said} (each in problems.jsonl); first error: generation failed" in first.output
    runtime = json.loads((out / "runtime.json").read_text())
    assert (runtime["items"], runtime["failed_items"]) == (ITEMS, len(odd))
    assert len(_lines(out / "predictions.jsonl")) == ITEMS - len(odd)
    assert again == odd
    assert over.exit_code == 1 and f"error: {said}, more than --max-failures {len(odd) - 1} allows" in over.output
    assert within.exit_code == 0, within.output


def test_desiq_eval_of_only_malformed_replies_exits_1(tmp_path):
    from desiq.cli import app

    rows = [
        {"id": f"q{n}", "question": f"Who waved {n}?", "choices": ["Ann", "Bo", "Cy"], "answerKey": "B"}
        for n in range(4)
    ]
    data = tmp_path / "qa.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "run"
    with ScriptedServer(lambda call: MALFORMED["null content"][0]) as server:
        command = ["eval", "--model", "openai:m", "--api-base", server.url, "--data", str(data), "--inputs", "q+a"]
        result = CliRunner().invoke(
            app, [*command, "--answer", "generate", "--condition", "original", "--out", str(out)]
        )
        asked = len(server.calls)  # one call per item, none retried
    assert result.exit_code == 1, result.output
    assert f"error: 0 of {asked} items succeeded; first error: MalformedReply: openai:m request" in result.output
    assert result.output.rstrip().endswith("malformed reply: the reply's message has no content (null)")
    assert json.loads((out / "runtime.json").read_text())["failed_items"] == asked >= 4
    assert len(_lines(out / "problems.jsonl")) == asked
