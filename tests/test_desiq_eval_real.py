"""``desiq eval`` on the real Social-IQ 2.0 training questions (text settings): every condition runs, and the
questions each condition asked keep the Social-IQ invariants."""

from __future__ import annotations

import json

from siq_data import REAL_SIQ2, needs_real_data
from tiny_video_models import build_llava15
from typer.testing import CliRunner

from desiq.cli import app
from desiq.formats import read_mcqa
from desiq.llm.conditions import CONDITIONS
from desiq.perturbations import PERTURBATIONS, SPLITS

LIMIT = 12


@needs_real_data
def test_every_condition_runs_on_real_questions_and_keeps_the_invariants(tmp_path):
    model = build_llava15(tmp_path / "llava")
    run = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        [
            "eval",
            "--model",
            str(model),
            "--data",
            str(REAL_SIQ2),
            "--out",
            str(run),
            "--inputs",
            "q+a",
            "--limit",
            str(LIMIT),
            "--batch-size",
            "16",
            "--no-progress",
        ],
    )
    assert result.exit_code == 0, result.output
    metrics = json.loads((run / "metrics.json").read_text())
    assert {(r["condition"], r["config"], r["n"]) for r in metrics["results"]} == {
        (c, k, LIMIT if k == "A4" else 3 * LIMIT) for c in CONDITIONS for k in ("A4", "A2")
    }
    released = read_mcqa(REAL_SIQ2)[:LIMIT]
    others = {item.answer for item in read_mcqa(REAL_SIQ2)}
    markers = {p.name: p.marker for p in PERTURBATIONS.values()} | {f"desiq_{k}": s.marker for k, s in SPLITS.items()}
    for condition in CONDITIONS:
        # read_mcqa checks the release's invariants: ans_corr = a[answer_idx], one correct marker at answer_idx
        asked = read_mcqa(run / "conditions" / f"{condition}.A4.jsonl")
        rotations = 4 if condition == "circular" else 1
        assert len(asked) == rotations * LIMIT
        for k, item in enumerate(asked):
            source = released[k % LIMIT]
            assert (item.qid, item.video, item.ts) == (source.qid, source.video, source.ts)
            assert len(set(item.options)) == 4 and len(item.option_markers) == 4
            assert item.question == ("" if condition == "NCAQ" else source.question)
            if condition in ("original", "NCAQ"):
                assert item.options == source.options and item.answer_idx == source.answer_idx
            elif condition == "circular":
                assert item.answer == source.answer and sorted(item.options) == sorted(source.options)
                assert item.answer_idx == (source.answer_idx - k // LIMIT) % 4
            elif condition == "SHUF":  # the answer follows its option
                assert item.answer == source.answer and sorted(item.options) == sorted(source.options)
            elif condition in ("RAWI", "RAWA"):
                slot = source.answer_idx
                assert item.answer_idx == slot and item.option_markers[slot] == markers[condition]
                assert item.answer != source.answer and item.options[slot] in others | _distractors()
                assert all(item.options[i] == source.options[i] for i in range(4) if i != slot)
            else:  # the incorrect options replaced, the correct one kept
                assert item.answer == source.answer and item.answer_idx == source.answer_idx
                assert all(item.option_markers[i] == markers[condition] for i in item.incorrect_idx)
                assert source.answer not in [item.options[i] for i in item.incorrect_idx]
                if condition != "RIWI":
                    assert all(item.options[i] in others for i in item.incorrect_idx)
        pairs = read_mcqa(run / "conditions" / f"{condition}.A2.jsonl")
        assert len(pairs) == 3 * LIMIT * (2 if condition == "circular" else 1)
        assert all(len(pair.options) == 2 and len(set(pair.options)) == 2 for pair in pairs)


def _distractors() -> set[str]:
    return {item.options[i] for item in read_mcqa(REAL_SIQ2) for i in item.incorrect_idx}
