"""SocKET tasks of the Trustworthiness category, as data: rows as ``mmsoc.tasks.socket.table`` describes them."""

from __future__ import annotations

from mmsoc.tasks.socket.table import build_tasks

CATEGORY = "Trustworthiness"

ROWS = (
    (
        50,
        "bragging#brag_achievement",
        "CLS",
        "bragging",
        ("not achievement bragging", "achievement bragging"),
        ("No", "Yes"),
        'For the sentence: "{text}", is it bragging about an achievement?',
    ),
    (
        51,
        "bragging#brag_action",
        "CLS",
        "bragging",
        ("not action bragging", "action bragging"),
        ("No", "Yes"),
        'For the sentence: "{text}", is it bragging about an action?',
    ),
    (
        52,
        "bragging#brag_possession",
        "CLS",
        "bragging",
        ("not possession bragging", "possession bragging"),
        ("No", "Yes"),
        'For the sentence: "{text}", is it bragging about a possession?',
    ),
    (
        53,
        "bragging#brag_trait",
        "CLS",
        "bragging",
        ("not trait bragging", "trait bragging"),
        ("No", "Yes"),
        'For the sentence: "{text}", is it bragging about a trait?',
    ),
    (
        54,
        "hypo-l",
        "CLS",
        "hypo-l",
        ("not hyperbole", "hyperbole"),
        ("No", "Yes"),
        'For the sentence: "{text}", is it a hyperbole?',
    ),
    (
        55,
        "neutralizing-bias-pairs",
        "PAIR",
        "neutralizing-bias-pairs",
        ("the first sentence is biased", "the second sentence is biased"),
        ("the first sentence is biased", "the second sentence is biased"),
        'For the sentences: "{text_a}" and "{text_b}", which one is biased?',
    ),
    (
        56,
        "propaganda-span",
        "SPAN",
        "propaganda-span",
        ("propaganda",),
        (),
        'In the sentence: "{text}", which part of it can be identified as the propaganda?',
    ),
    (
        57,
        "rumor#rumor_bool",
        "CLS",
        "rumor",
        ("not rumor", "rumor"),
        ("No", "Yes"),
        'For the sentence: "{text}", is it a rumor?',
    ),
    (
        58,
        "two-to-lie#receiver_truth",
        "CLS",
        "two-to-lie",
        ("lie", "truth"),
        ("Yes", "No"),
        'For the sentence :"{text}", will it be perceived as a lie by the receiver?',
    ),
    (
        59,
        "two-to-lie#sender_truth",
        "CLS",
        "two-to-lie",
        ("lie", "truth"),
        ("Yes", "No"),
        'For the sentence :"{text}", is the sender intending to tell a lie?',
    ),
)

TASKS = build_tasks(CATEGORY, ROWS)
