"""SocKET answer readers: the official eval.py reader pinned on hand-written generations, its defects
included, beside the lenient reader's fixes."""

from __future__ import annotations

import pytest

from mmsoc.tasks.registry import get_task
from mmsoc.tasks.socket.answers import answer_text, lenient_choice, official_choice, official_number, span_candidates

SARC = get_task("socket/sarc")  # options Yes (sarcastic), No (literal)
IRONY = get_task("socket/tweet_irony")  # options No, Yes
INTIMACY = get_task("socket/questionintimacy")
EMOJI = get_task("socket/tweet_emoji")
CROWDFLOWER = get_task("socket/crowdflower")
NEUTRAL = get_task("socket/neutralizing-bias-pairs")


@pytest.mark.parametrize(
    ("answer", "official"),
    [
        ("Yes", 0),
        ("yes.", 0),
        ("  NO  ", 1),
        ("True", 0),
        ("false, it is literal", 1),
        # defects kept: any answer that merely starts with an option word counts
        ("Not sure", 1),
        ("None of them", 1),
        ("Nothing here", 1),
        ("Yes, cuz tax cuts will help those w/o jobs!", 0),  # the published bloom/falcon echo of the input
        # anything before the option makes it missing
        ("Answer: Yes", None),
        ("The answer is yes", None),
        ('"Yes"', None),
        ("A: No", None),
        ("", None),
    ],
)
def test_official_reader_first_prefix(answer, official):
    assert official_choice(SARC, answer) == official


def test_official_reader_follows_the_option_order_of_the_prompt_file():
    assert official_choice(IRONY, "No") == 0 and official_choice(IRONY, "Yes") == 1
    assert official_choice(IRONY, "true") == 1 and official_choice(IRONY, "false") == 0
    assert official_choice(CROWDFLOWER, "Funny, really") == 6  # "fun"
    assert official_choice(NEUTRAL, "The first sentence is biased.") == 0
    assert official_choice(NEUTRAL, "The first one") is None


def test_not_intimate_at_all_is_unreachable_officially_and_found_leniently():
    options = [option for option, _ in INTIMACY.answers]
    assert options[4:] == ["Not intimate", "Not intimate at all"]
    assert official_choice(INTIMACY, "Not intimate at all") == 4  # the defect: read as "Not intimate"
    assert lenient_choice(INTIMACY, "Not intimate at all") == 5
    assert official_choice(INTIMACY, "Very intimate") == lenient_choice(INTIMACY, "Very intimate") == 0
    assert lenient_choice(INTIMACY, "Not intimate.") == 4
    assert lenient_choice(INTIMACY, "Somewhat intimate") == official_choice(INTIMACY, "Somewhat intimate") == 2


def test_lenient_reader_keeps_everything_else_of_the_official_one():
    for answer in ("Yes", "Not sure", "Answer: Yes", "true", "false", "", "yes and no"):
        assert lenient_choice(SARC, answer) == official_choice(SARC, answer), answer


def test_emoji_official_per_code_point_lenient_whole():
    flag, heart = EMOJI.labels.index("🇺🇸"), EMOJI.labels.index("❤")
    assert official_choice(EMOJI, "🔥") == EMOJI.labels.index("🔥")
    assert official_choice(EMOJI, "I'd add 🔥 and 🔥") == EMOJI.labels.index("🔥")  # one distinct code point
    assert official_choice(EMOJI, "🔥😂") is None  # two emoji -> missing
    assert official_choice(EMOJI, "🇺🇸") is None  # two regional indicators, never found
    assert lenient_choice(EMOJI, "🇺🇸") == flag
    assert official_choice(EMOJI, "❤️") == heart  # U+2764 found, the variation selector is no emoji
    assert lenient_choice(EMOJI, "❤️") == heart  # whole emoji, variation selector ignored for the option
    assert official_choice(EMOJI, "🙃") is None and lenient_choice(EMOJI, "🙃") is None  # not an option
    assert lenient_choice(EMOJI, "🔥😂") is None


@pytest.mark.parametrize(
    ("answer", "number"),
    [
        ("3", 3.0),
        ("3.5", 3.5),
        ("about 2.5 I think", 2.5),
        ("-2", 2.0),  # the sign is lost
        ("10", None),
        ("3.75", None),
        ("3.5 out of 5", None),
        ("between 2 and 3", None),
        ("0.0 to 5.0", None),
        ("no idea", None),
    ],
)
def test_official_number_needs_exactly_one_match(answer, number):
    assert official_number(answer) == number


def test_span_candidates_after_the_echoed_question():
    spec = get_task("socket/toxic-span")
    suffix = " which part of it can be identified as toxic?"
    assert spec.prompt.split(",")[-1] == suffix
    assert span_candidates(spec, f'In the sentence: "x",{suffix} "you idiot" and "moron"') == ["you idiot", "moron"]
    assert span_candidates(spec, "you idiot") == ["you idiot"]
    assert span_candidates(spec, "") == [""]


def test_answer_text_is_what_predict_py_keeps():
    assert answer_text("  Yes\nQuestion: more text") == "Yes"
    assert answer_text("\n\nNo, it is not") == "No, it is not"
