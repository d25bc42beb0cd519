"""SocKET tasks of the Humor & Sarcasm category, as data: rows as ``mmsoc.tasks.socket.table`` describes them."""

from __future__ import annotations

from mmsoc.tasks.socket.table import build_tasks

CATEGORY = "Humor & Sarcasm"

ROWS = (
    (
        3,
        "hahackathon#humor_rating",
        "REG",
        "hahackathon",
        ("humor rating",),
        (),
        'Determine the degree of humor of the given sentence: "{text}". The score should be ranging from 0.0 to '
        "5.0, and can be a decimal. 0 is not humorous at all, and 5 is very humorous.",
    ),
    (
        4,
        "hahackathon#is_humor",
        "CLS",
        "hahackathon",
        ("not humor", "humor"),
        ("No", "Yes"),
        'For the sentence: "{text}", is it humorous?',
    ),
    (
        5,
        "humor-pairs",
        "PAIR",
        "humor-pairs",
        ("the first sentence is funnier", "the second sentence is funnier"),
        ("Yes", "No"),
        'The first sentence is "{text_a}". The second sentence is "{text_b}". Is the first sentence funnier than '
        "the second sentence?",
    ),
    (6, "sarc", "CLS", "sarc", ("sarcastic", "literal"), ("Yes", "No"), 'For the sentence: "{text}", is it sarcastic?'),
    (
        7,
        "tweet_irony",
        "CLS",
        "tweet_irony",
        ("not irony", "irony"),
        ("No", "Yes"),
        'For the sentence: "{text}", is it ironic?',
    ),
)

TASKS = build_tasks(CATEGORY, ROWS)
