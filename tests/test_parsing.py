"""Response parsing (strict and lenient) and prompt versions on real-looking model answers."""

import hashlib
import json

import pytest

from mmsoc.core.io import InputError
from mmsoc.tasks import parse_response
from mmsoc.tasks.kinds.base import Parsed as ParseResult
from mmsoc.tasks.prompts import load_prompt_overrides, prompt_for

INVALID = None

# (task, response, strict label, lenient label); None = invalid
CLASSIFICATION = [
    ("hate", "Yes.", "hateful", "hateful"),
    ("hate", "No", "not_hateful", "not_hateful"),
    ("hate", "No, it is not hateful", INVALID, "not_hateful"),
    ("hate", "No, it is hateful.", INVALID, INVALID),
    ("hate", "Yes, it is not hateful.", INVALID, INVALID),
    ("hate", "I don't think this meme is hateful. It shows a dog.", INVALID, "not_hateful"),
    ("hate", "**Yes** - the meme demeans a group of people.", INVALID, "hateful"),
    ("hate", "The image shows a woman holding a sign in a park. Some people might find it hateful.", INVALID, INVALID),
    ("misinfo_politifact", "Yes", "fake", "fake"),
    ("misinfo_politifact", "No, this looks like real news.", INVALID, "true"),
    ("misinfo_gossipcop", "This is misinformation; the source is a tabloid.", INVALID, "fake"),
    ("misinfo_gossipcop", "It is true that this could be misinformation", INVALID, INVALID),
    ("humor", "not_humorous", "not_humorous", "not_humorous"),
    ("humor", "Humorous", "humorous", "humorous"),
    ("humor", "not humorous", "not_humorous", "not_humorous"),
    ("humor", "The meme is not very humorous.", INVALID, "not_humorous"),
    ("humor", "This meme is funny because the cat looks surprised.", INVALID, "humorous"),
    ("humor", "No, it is humorous", INVALID, "humorous"),
    ("humor", "It's humorous and not_humorous at the same time", INVALID, INVALID),
    ("sarcasm", "Not sarcastic.", "not_sarcastic", "not_sarcastic"),
    ("sarcasm", "sarcastic", "sarcastic", "sarcastic"),
    ("sarcasm", "The meme isn't sarcastic, it is sincere.", INVALID, "not_sarcastic"),
    ("offensive", "OFFENSIVE", "offensive", "offensive"),
    ("offensive", "Answer: not_offensive", INVALID, "not_offensive"),
    ("sentiment", "negative", "negative", "negative"),
    ("sentiment", "The overall sentiment is positive.", INVALID, "positive"),
    ("sentiment", "The sentiment is not negative, it is neutral.", INVALID, "neutral"),
    ("sentiment", "Neutral to positive", INVALID, INVALID),
    ("sentiment", "", INVALID, INVALID),
    (
        "sentiment",
        "I cannot determine the sentiment of this image without more context about the people "
        "shown in it and the situation they are in, but it might be positive.",
        INVALID,
        INVALID,
    ),
]


@pytest.mark.parametrize("task, raw, strict, lenient", CLASSIFICATION)
def test_classification_strict_and_lenient(task, raw, strict, lenient):
    assert parse_response(task, raw, "strict") == ParseResult(strict, strict is not None)
    assert parse_response(task, raw, "lenient") == ParseResult(lenient, lenient is not None)


@pytest.mark.parametrize(
    "raw, strict, lenient",
    [
        ("music,pop_music", ["music", "pop_music"], ["music", "pop_music"]),
        ("sports,tennis,french-open", INVALID, ["sport", "tennis"]),
        ("Tags: Hip hop music, Music", INVALID, ["hip_hop_music", "music"]),
        (
            "action-adventure game; role playing video game",
            ["action-adventure_game", "role-playing_video_game"],
            ["action-adventure_game", "role-playing_video_game"],
        ),
        ("cooking, recipes", INVALID, INVALID),
        ("", INVALID, INVALID),
    ],
)
def test_tagging(raw, strict, lenient):
    assert parse_response("tagging", raw, "strict") == ParseResult(strict, strict is not None)
    assert parse_response("tagging", raw, "lenient") == ParseResult(lenient, lenient is not None)


@pytest.mark.parametrize(
    "raw, strict, lenient",
    [
        ('"when you forget the milk"', "when you forget the milk", "when you forget the milk"),
        ('The text says "Oh great, Monday again" at the top.', "Oh great, Monday again", "Oh great, Monday again"),
        (
            "The text in the image is \u201cnobody wants them here\u201d.",
            "nobody wants them here",
            "nobody wants them here",
        ),
        ("  me when the wifi is down  ", INVALID, "me when the wifi is down"),
        ('""', INVALID, INVALID),
    ],
)
def test_ocr(raw, strict, lenient):
    assert parse_response("ocr", raw, "strict") == ParseResult(strict, strict is not None)
    assert parse_response("ocr", raw, "lenient") == ParseResult(lenient, lenient is not None)


def test_generation_and_explanations():
    results = [parse_response("social_context", raw) for raw in ["  A meme about work.\n", "   ", "It mocks x."]]
    assert [(r.label, r.ok) for r in results] == [("A meme about work.", True), (None, False), ("It mocks x.", True)]
    # What explanation fine-tuning teaches a model to write is cut off before parsing the answer.
    assert parse_response("hate", "Yes Explanation: the text insults a group.", "strict") == ParseResult(
        "hateful", True
    )
    assert parse_response("hate", "Yes Explanation: the text insults a group.", "lenient") == ParseResult(
        "hateful", True
    )
    with pytest.raises(ValueError, match="parse mode"):
        parse_response("hate", "Yes", "loose")


def test_benchmark_prompts_are_verbatim():
    assert prompt_for("hate") == ("Is this meme hateful? Answer 'Yes' or 'No'.", "mmsoc-v1")
    assert prompt_for("misinfo_gossipcop")[0] == "Is this news (image-text pair) misinformation? Answer 'Yes' or 'No'."
    assert prompt_for("sentiment")[0] == (
        "What is the overall sentiment expressed through this meme? Answer 'positive' or 'neutral' or 'negative'"
    )
    assert prompt_for("ocr")[0] == "What is the text in the image? Use double quotes to enclose your answer."
    with pytest.raises(KeyError, match="prompt version"):
        prompt_for("hate", version="v0")


def test_overrides_from_json_and_yaml(tmp_path):
    general = {"hate": "Does this meme attack a group? Answer Yes or No."}
    path = tmp_path / "prompts.json"
    path.write_text(json.dumps({**general, "models": {"tiny-llava": {"humor": "Funny? humorous/not_humorous"}}}))
    assert load_prompt_overrides(path) == general
    per_model = load_prompt_overrides(path, model="tiny-llava")
    text, version = prompt_for("humor", overrides=per_model)
    assert text == "Funny? humorous/not_humorous"
    assert version == "mmsoc-v1+" + hashlib.sha256(text.encode()).hexdigest()[:8]
    assert prompt_for("sarcasm", overrides=per_model)[1] == "mmsoc-v1"
    yaml_path = tmp_path / "prompts.yaml"
    yaml_path.write_text("ocr: 'Read the text.'\n")
    assert load_prompt_overrides(yaml_path) == {"ocr": "Read the text."}


def test_bad_override_files_name_the_field(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"hateful_memes": "x"}))
    with pytest.raises(InputError) as err:
        load_prompt_overrides(path)
    assert err.value.field == "hateful_memes" and str(path) in str(err.value)
    path.write_text('{"hate": ')
    with pytest.raises(InputError, match="invalid JSON"):
        load_prompt_overrides(path)
