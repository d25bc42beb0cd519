"""A model as judge: verdict parsing (hand-worked answers), both orders, and a tiny LLaVA judging battles
built from two eval runs on the MM-Soc sample, end to end, with resume."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch
from typer.testing import CliRunner

from mmsoc.arena.judge import ORDERS, outcome_of, parse_verdict, request
from mmsoc.arena.judge_prompts import judge_prompt
from mmsoc.arena.media import data_root
from mmsoc.arena.records import Battle, Vote, read_battles, write_battles
from mmsoc.cli import app
from mmsoc.models.base import Image, Text

TASK = "image_description"


@pytest.mark.parametrize(
    "raw, label, strict, critique",
    [
        ("B misreads the meme's text.\n[[A]]", "A", True, "B misreads the meme's text."),
        ("Critique: both ignore the image.\n\n[[both_bad]]\n", "both_bad", True, "both ignore the image."),
        ("Equally vague. [[tie]]", "tie", False, "Equally vague."),
        ("[[A]] is tempting but\n[[B]]", "B", False, "[[A]] is tempting but"),
        ("[[ both bad ]]", "both_bad", False, ""),
        ("MT-bench style tie: [[C]]", "tie", False, "MT-bench style tie:"),
        ("Assistant B is kinder.\nVerdict: B", "B", False, "Assistant B is kinder."),
        ("The winner is **A**", "A", False, "The"),
        ("Answer A reads the image, answer B does not.", None, False, "Answer A reads the image, answer B does not."),
        ("tie.", "tie", False, ""),
        ("A", "A", False, ""),
        ("I cannot decide which is better.", None, False, "I cannot decide which is better."),
        ("", None, False, ""),
        ("[[a]]", "A", False, ""),
    ],
)
def test_verdicts_parse_strictly_and_leniently(raw, label, strict, critique):
    verdict = parse_verdict(raw)
    assert (verdict.label, verdict.strict, verdict.critique) == (label, strict, critique)


def _battle(k: int) -> Battle:
    return Battle(f"b{k}", f"i{k}", "x", "y", f"x answer {k}", f"y answer {k}")


def _row(battle: Battle, order: str, raw: str) -> dict:
    return {"battle": battle.id, "order": order, "digest": battle.digest, "raw": raw}


def test_both_orders_map_back_and_disagreement_is_a_tie():
    b = [_battle(k) for k in range(5)]
    rows = [
        _row(b[0], "AB", "[[A]]"),
        _row(b[0], "BA", "[[B]]"),  # x both times -> A
        _row(b[1], "AB", "[[A]]"),
        _row(b[1], "BA", "[[A]]"),  # first shown both times -> tie
        _row(b[2], "AB", "good\n[[both_bad]]"),
        _row(b[2], "BA", "[[both_bad]]"),
        _row(b[3], "AB", "no idea"),
        _row(b[3], "BA", "[[B]]"),  # unparseable AB -> no vote
        _row(b[4], "AB", "[[B]]"),
    ]  # BA not answered yet -> no vote
    stale = {**_row(b[4], "BA", "[[A]]"), "digest": "old"}  # an answer to an earlier version of b4
    outcome = outcome_of(b, [*rows, stale], "judge:t")
    assert [(v.id, v.votes) for v in outcome.votes] == [
        ("b0", (Vote("judge:t", "A", "", 0.0),)),
        ("b1", (Vote("judge:t", "tie", "", 0.0),)),
        ("b2", (Vote("judge:t", "both_bad", "good", 0.0),)),
    ]
    assert [(p["battle"], p["order"]) for p in outcome.problems] == [("b3", "AB")]
    s = outcome.summary
    assert (s["battles"], s["voted"], s["answers"], s["unparseable"]) == (5, 3, 9, 1)
    assert s["order_consistency"] == pytest.approx(2 / 3)
    assert s["first_position_share"] == pytest.approx(3 / 6)  # A in 3 of the 6 answers saying A or B


def test_requests_carry_the_item_image_only_for_models_that_read_images(tmp_path):
    root = data_root("sample")
    battle = Battle(
        "b1",
        "10041",
        "x",
        "y",
        "first answer",
        "second answer",
        task=TASK,
        prompt="Describe it.",
        text="meme words",
        data="sample",
        media=("hateful_memes/img/10041.png",),
    )
    with_image = request(battle, "BA", judge_prompt(), frozenset({"text", "image"}))
    assert with_image.parts[0] == Image(str((root / "hateful_memes/img/10041.png").resolve()))
    prompt = with_image.parts[1].text
    assert prompt.index("second answer") < prompt.index("first answer")
    assert "Describe it." in prompt and "meme words" in prompt
    text_only = request(battle, "AB", judge_prompt(), frozenset({"text"}))
    assert len(text_only.parts) == 1 and isinstance(text_only.parts[0], Text)
    assert with_image.id == "b1:BA" and with_image.seed is None


def _teach(folder: Path, out: Path, battle: Battle, answer: str, steps: int = 40) -> Path:
    """A copy of the tiny LLaVA trained briefly to answer ``answer`` to a judge request (a position-biased
    judge: it always prefers the first answer shown)."""
    from PIL import Image as PILImage
    from transformers import AutoProcessor, LlavaForConditionalGeneration

    from mmsoc.models.prompting import format_prompt

    torch.manual_seed(0)
    model = LlavaForConditionalGeneration.from_pretrained(folder)
    processor = AutoProcessor.from_pretrained(folder)
    r = request(battle, "AB", judge_prompt(), frozenset({"text", "image"}))
    with PILImage.open(r.images[0]) as image:
        inputs = processor(
            text=[format_prompt("llava", processor, r.parts)], images=[image.convert("RGB")], return_tensors="pt"
        )
    tok = processor.tokenizer
    target = tok(answer, add_special_tokens=False, return_tensors="pt").input_ids
    ids = torch.cat([inputs.input_ids, target, torch.tensor([[tok.eos_token_id]])], dim=1)
    labels = ids.clone()
    labels[:, : inputs.input_ids.shape[1]] = -100
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    model.train()
    for _ in range(steps):
        loss = model(input_ids=ids, pixel_values=inputs.pixel_values, labels=labels).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval().save_pretrained(out)
    processor.save_pretrained(out)
    return out


def _ok(*args: str):
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def test_tiny_llava_judges_battles_from_two_eval_runs(tiny_llava, tmp_path):
    common = ["eval", "--task", TASK, "--limit", "3", "--no-progress", "--fast-metrics"]
    _ok(*common, "--model", "random", "--out", str(tmp_path / "random"))
    _ok(*common, "--model", str(tiny_llava), "--greedy", "--max-new-tokens", "8", "--out", str(tmp_path / "llava"))
    battles_file = tmp_path / "battles.jsonl"
    _ok(
        "arena",
        "pair",
        "--runs",
        str(tmp_path / "random"),
        "--runs",
        str(tmp_path / "llava"),
        "--out",
        str(battles_file),
    )
    battles = read_battles(battles_file)
    assert len(battles) == 3 and all(set(b.models) == {"random", "llava"} and b.media for b in battles)
    judge_dir = _teach(tiny_llava, tmp_path / "judge", battles[0], "A")
    out, run = tmp_path / "judge_votes.jsonl", tmp_path / "judge_votes.run"
    args = [
        "arena",
        "judge",
        "--model",
        str(judge_dir),
        "--battles",
        str(battles_file),
        "--out",
        str(out),
        "--max-new-tokens",
        "3",
        "--no-progress",
    ]
    _ok(*args)
    rows = [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
    assert [(r["battle"], r["order"]) for r in rows] == [(b.id, o) for b in battles for o in ORDERS]
    assert all(r["raw"] == "A" and r["label"] == "A" and r["valid"] and not r["strict_valid"] for r in rows)
    voted = read_battles(out)
    # the judge always picks the first answer shown: asked in both orders, every battle comes out a tie
    assert [b.id for b in voted] == [b.id for b in battles]
    assert all(b.votes == (Vote("judge:judge", "tie", "", 0.0),) for b in voted)
    summary = json.loads((run / "metrics.json").read_text())
    assert (summary["order_consistency"], summary["first_position_share"]) == (0.0, 1.0)
    assert (summary["valid_rate"], summary["strict_valid_rate"], summary["unparseable"]) == (1.0, 0.0, 0)
    assert (run / "problems.jsonl").read_text() == ""

    # resume: a run cut short answers only what is missing, and gives the same bytes
    logged, votes = (run / "predictions.jsonl").read_bytes(), out.read_bytes()
    (run / "predictions.jsonl").write_bytes(b"".join(logged.splitlines(keepends=True)[:-2]))
    _ok(*args)
    assert (run / "predictions.jsonl").read_bytes() == logged and out.read_bytes() == votes
    shutil.rmtree(judge_dir)  # nothing left to ask: the model is not even loaded
    _ok(*args)
    assert out.read_bytes() == votes
    other = CliRunner().invoke(app, [*args[:-3], "--max-new-tokens", "5", "--no-progress"])
    assert other.exit_code == 2 and "different run" in other.output

    # the judge's votes rate like any votes; against people's majority labels it is right once in three
    _ok(
        "arena",
        "rate",
        "--votes",
        str(out),
        "--out",
        str(tmp_path / "rated"),
        "--min-annotators",
        "1",
        "--bootstrap",
        "10",
    )
    rated = json.loads((tmp_path / "rated/ratings.json").read_text())
    assert rated["elo"] == {"llava": 1000.0, "random": 1000.0} and rated["dropped"] == 0
    assert all(m["rating"] == pytest.approx(1000.0) and m["battles"] == 3 for m in rated["models"])
    people = [
        b.with_votes([Vote(f"p{j}", label, "", 10.0 + j) for j, label in enumerate(labels)])
        for b, labels in zip(battles, (["tie", "tie", "A"], ["A", "A", "B"], ["B", "B", "B"]))
    ]
    write_battles(tmp_path / "people.jsonl", people)
    _ok(
        "arena",
        "rate",
        "--votes",
        str(tmp_path / "people.jsonl"),
        "--judge",
        str(out),
        "--out",
        str(tmp_path / "agreement"),
        "--bootstrap",
        "10",
    )
    judges = json.loads((tmp_path / "agreement/ratings.json").read_text())["agreement"]["judges"]
    assert judges["judge:judge"]["votes"] == 3 and judges["judge:judge"]["label_accuracy"] == pytest.approx(1 / 3)
    assert judges["judge:judge"]["critiques_compared"] == 0
