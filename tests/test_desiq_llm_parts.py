"""The pieces of ``desiq eval`` without a model: prompts, conditions, answer parsing, metrics, media, submission."""

from __future__ import annotations

import json

import numpy as np
import pytest

from desiq.llm.answers import lenient_choice, loglik_choices, reply_digits, row_correct, strict_choice
from desiq.llm.conditions import CONDITIONS, ask, parse_conditions, rotate
from desiq.llm.metrics import condition_result, positions, verdict
from desiq.llm.prompts import BUILTIN, get_prompt, load_prompts
from desiq.llm.submission import write_submission
from desiq.records import MCQAItem
from desiq.sample import sample_items
from mmsoc.core.io import InputError
from mmsoc.media.transcript import transcript_text
from mmsoc.models.processor_inputs import grid_image
from mmsoc.models.recipes import RECIPES, MediaRecipe, recipe_for

VTT = (
    "WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nI did not expect\nthat at all.\n\n"
    "00:00:01.500 --> 00:00:03.000\n<v Bob>Well, <i>nobody</i> did.\n"
)


def _challenge_reference(transcript: str, row: dict, classes: int = 4) -> str:
    """The Social-IQ 2.0 challenge baseline's prompt, as its code builds it (chatgpt_baseline.py:52-63)."""
    message = 'Context:"{}"\n'.format(transcript)  # noqa: UP032 (the baseline's own code)
    message += 'Question:"{}"\nAnswer Choices:\n'.format(row["q"])
    for i in range(classes):
        name = "a" + str(i)
        message += f'({i})"{row[name]}"\n'
    message += "Respond with only the index of the more likely correct answer to the question:"
    return message


def test_challenge_prompt_is_the_baselines_character_for_character(tmp_path):
    vtt = tmp_path / "v.vtt"
    vtt.write_text(VTT)
    transcript = transcript_text(vtt)
    # webvtt-py's caption.text keeps a cue's lines and drops its tags; captions are joined by newlines
    assert transcript == "I did not expect\nthat at all.\nWell, nobody did."
    item = sample_items("val")[0]
    row = {"q": item.question, **{f"a{i}": o for i, o in enumerate(item.options)}}
    spec = BUILTIN["siq2-challenge-v1"]
    assert spec.render(item.question, item.options, transcript) == _challenge_reference(transcript, row)
    assert spec.answers(item.options) == ["0", "1", "2", "3"]
    # no transcript in the setting: no context (as the flan-t5 baseline without --transcript); NCAQ: no question
    assert spec.render(item.question, item.options).startswith('Question:"')
    assert spec.render("", item.options).startswith("Answer Choices:\n(0)")


def test_lettered_prompt_answers_with_letter_and_text():
    spec = get_prompt()
    text = spec.render("Why?", ["yes", "no"])
    assert text == "Question: Why?\nOptions:\nA. yes\nB. no\nAnswer with the letter and the text of the correct option."
    assert spec.answers(["yes", "no"]) == ["A. yes", "B. no"]


def test_prompts_file_overrides_are_versioned_and_checked(tmp_path):
    path = tmp_path / "prompts.json"
    path.write_text(json.dumps({"short": {"base": "siq2-challenge-v1", "instruction": "Index:"}}))
    prompts = load_prompts(path)
    assert prompts["short"].render("q", ["x", "y"]).endswith('(1)"y"\nIndex:')
    assert prompts["short"].version.startswith("short+") and len(prompts["short"].version) == len("short+") + 8
    assert prompts["mc-letter-v1"].version == "mc-letter-v1"
    path.write_text(json.dumps({"bad": {"instructions": "x"}}))
    with pytest.raises(InputError, match=r"bad\.instructions"):
        load_prompts(path)
    path.write_text(json.dumps({"bad": {"choice": "{letter}"}}))
    with pytest.raises(InputError, match=r"bad\.choice"):
        load_prompts(path)


def test_every_condition_is_asked_in_canonical_order_and_limit_asks_a_prefix():
    items = sample_items("val")
    full = ask(items, CONDITIONS, seed=0)
    limited = ask(items, CONDITIONS, seed=0, limit=5)
    assert [a for a in full if a.source in {i.id for i in items[:5]}] == limited
    n = len(items)
    per_condition = {c: sum(a.condition == c for a in full) for c in CONDITIONS}
    assert per_condition["original"] == n + 3 * n  # A4 questions and A2 pairs
    assert per_condition["circular"] == 4 * n + 2 * 3 * n  # every rotation
    ncaq = [a for a in full if a.condition == "NCAQ"]
    assert all(a.blind and a.item.question == "" for a in ncaq)
    riwa = {a.item.id: a.item for a in full if a.condition == "RIWA" and a.config == "A4"}
    for item in items:  # each distractor became another question's correct answer; the answer stays
        assert riwa[item.id].answer == item.answer
        assert set(riwa[item.id].options) - {item.answer} <= {x.answer for x in items if x.id != item.id}


def test_rotations_move_every_option_and_the_gold_index():
    item = sample_items("val")[0]
    rotated = [rotate(item, r) for r in range(4)]
    assert [r.answer for r in rotated] == [item.answer] * 4
    assert sorted(r.answer_idx for r in rotated) == [0, 1, 2, 3]
    assert rotated[1].options == (*item.options[1:], item.options[0])


def test_unlabelled_questions_take_only_conditions_without_answer_keys():
    items = [MCQAItem(f"q{k}", f"q{k}", "v", "Why?", ("a", "b", "c", "d"), None) for k in range(3)]
    assert parse_conditions(None, labelled=False) == ("original", "NCAQ", "circular")
    with pytest.raises(ValueError, match="RIWI need answer keys"):
        parse_conditions("original,RIWI", labelled=False)
    assert {a.config for a in ask(items, ("original", "circular"))} == {"A4"}
    with pytest.raises(ValueError, match="nearest: original"):
        parse_conditions("origin", labelled=True)


@pytest.mark.parametrize(
    "reply,strict,lenient",
    [
        ("B", 1, 1),
        ("(c).", 2, 2),
        ("B. no", 1, 1),
        (" b. NO ", 1, 1),
        ("B) because no", None, 1),
        ("Answer: D", None, 3),
        ("I think the answer is no", None, 1),
        ("It is A or B", None, 0),
        ("maybe", None, None),
    ],
)
def test_strict_and_lenient_parsing(reply, strict, lenient):
    labels, options = ("A", "B", "C", "D"), ["yes", "no", "perhaps", "never"]
    answers = [f"{label}. {text}" for label, text in zip(labels, options)]
    assert strict_choice(reply, labels, answers) == strict
    assert lenient_choice(reply, labels, answers, options) == lenient


def test_challenge_rule_counts_any_digit_of_the_reply():
    assert reply_digits("(0) or 2, not 22") == [0, 2]
    row = {"gold": 2, "digits": [0, 2], "chosen": 0, "strict": None}
    assert row_correct(row, "generate", "challenge") and not row_correct(row, "generate", "lenient")


def test_loglik_choices_sum_and_per_character():
    # option 0: -6 over 3 characters (-2 per char); option 1: -8 over 8 characters (-1 per char)
    assert loglik_choices([-6.0, -8.0], [3, 8]) == (0, 1)


def _rows(condition: str, correct: list[bool], videos: list[str], rotations: int = 1) -> list[dict]:
    rows = []
    for k, (ok, video) in enumerate(zip(correct, videos)):
        for r in range(rotations):
            hit = ok or r < rotations - 1  # a wrong question is wrong only under its last rotation
            rows.append(
                {
                    "id": f"q{k}",
                    "vid_name": video,
                    "condition": condition,
                    "config": "A4",
                    "rotation": r,
                    "options": ["a", "b", "c", "d"],
                    "gold": r % 4,
                    "chosen": r % 4 if hit else (r + 1) % 4,
                    "chosen_norm": r % 4,
                    "missing": [],
                }
            )
    return rows


def test_circular_counts_a_question_only_when_every_rotation_is_right():
    rows = _rows("circular", [True, False, True, True], ["v1", "v1", "v2", "v3"], rotations=4)
    entry = condition_result(rows, "circular", "A4", "loglik", "lenient", seed=0)
    assert entry["accuracy"] == 0.75 and entry["n"] == 4 and entry["chance"] == 0.25**4
    assert entry["accuracy_norm"] == 1.0
    assert positions([r for r in rows if r["rotation"] == 0], True) == {"chosen": [4, 0, 0, 0], "gold": [4, 0, 0, 0]}


def test_verdict_reads_the_interval_against_chance():
    rows = _rows("original", [True] * 20, [f"v{k}" for k in range(20)])
    entry = condition_result(rows, "original", "A4", "loglik", "lenient", seed=0)
    assert entry["ci95"] == [1.0, 1.0] and verdict(entry) == "above chance"
    mixed = _rows("original", [k % 4 == 0 for k in range(40)], [f"v{k}" for k in range(40)])
    assert verdict(condition_result(mixed, "original", "A4", "loglik", "lenient", seed=0)) == "at chance"
    wrong = _rows("original", [False] * 20, [f"v{k}" for k in range(20)])
    assert verdict(condition_result(wrong, "original", "A4", "loglik", "lenient", seed=0)) == "below chance"


def test_submission_keeps_the_test_files_fields_and_order(tmp_path):
    qa = tmp_path / "qa_test.json"
    lines = [
        {"qid": "v_q0_0", "q": "Why?", "vid_name": "v", "ts": "0.00-60.0", "a0": "x", "a1": "y"},
        {"qid": "v_q0_0", "q": "How?", "vid_name": "v", "ts": "0.00-60.0", "a0": "z", "a1": "w"},
    ]
    qa.write_text("".join(json.dumps(line) + "\n" for line in lines))
    rows = [
        {"id": "v_q0_0@1", "condition": "original", "config": "A4", "rotation": 0, "chosen": 1},
        {"id": "v_q0_0@0", "condition": "original", "config": "A4", "rotation": 0, "chosen": 0},
        {"id": "v_q0_0@0", "condition": "circular", "config": "A4", "rotation": 1, "chosen": 1},
    ]
    assert write_submission(qa, rows, tmp_path / "sub.jsonl") == {"questions": 2, "unanswered": 0}
    written = [json.loads(line) for line in (tmp_path / "sub.jsonl").read_text().splitlines()]
    assert written == [{**lines[0], "answer_idx": 0}, {**lines[1], "answer_idx": 1}]


def test_recipes_say_how_each_family_takes_video():
    class Config:
        def __init__(self, model_type):
            self.model_type = model_type

    assert recipe_for(Config("llava")).video == "frames" and recipe_for(Config("blip-2")).video == "grid"
    assert recipe_for(Config("qwen2_5_vl")).metadata and not recipe_for(Config("qwen3_vl")).resample
    assert recipe_for(Config("instructblipvideo")).num_frames == 4
    assert recipe_for(Config("qwen2_audio")).modalities == {"text", "audio"}
    assert recipe_for(Config("llava"), video_as="grid").video == "grid"
    with pytest.raises(ValueError, match="no video processor"):
        recipe_for(Config("llava"), object(), video_as="video")
    with pytest.raises(ValueError, match="takes no images"):
        recipe_for(Config("qwen2_audio"), video_as="frames")
    assert all(isinstance(r, MediaRecipe) for r in RECIPES.values())


def test_grid_image_tiles_frames_row_major():
    frames = np.stack([np.full((2, 3, 3), k, np.uint8) for k in range(5)])
    grid = grid_image(frames)
    assert grid.shape == (4, 9, 3)  # 3 columns (ceil sqrt 5), 2 rows
    assert [grid[r * 2, c * 3, 0] for r in range(2) for c in range(3)] == [0, 1, 2, 3, 4, 0]


def test_fine_tuning_targets_are_the_answers_as_asked_with_teacher_explanations():
    from desiq.inputs import InputSetting
    from desiq.llm.finetune import training_items
    from desiq.llm.requests import RequestBuilder
    from mmsoc.runners.finetune.explanations import Explanation

    items = sample_items("train")[:3]
    builder = RequestBuilder(get_prompt(), InputSetting.parse("q+a"), None, frozenset({"text", "image", "video"}))
    table = {("", items[1].id): Explanation(items[1].id, "Her voice  is\nshaking.")}
    pairs, problems, counts = training_items(items, builder, None, table)
    assert problems == [] and counts["without_media"] == 0
    letters = "ABCD"
    assert pairs[0].target == f"{letters[items[0].answer_idx]}. {items[0].answer}" and not pairs[0].explained
    assert pairs[1].target == f"{letters[items[1].answer_idx]}. {items[1].answer} Explanation: Her voice is shaking."
    assert pairs[1].explained and pairs[1].request.prompt == get_prompt().render(items[1].question, items[1].options)
