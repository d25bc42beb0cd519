"""SocKET tasks of the Social Factors category, as data: rows as ``mmsoc.tasks.socket.table`` describes them."""

from __future__ import annotations

from mmsoc.tasks.socket.table import build_tasks

CATEGORY = "Social Factors"

ROWS = (
    (
        44,
        "complaints",
        "CLS",
        "complaints",
        ("not complaint", "complaint"),
        ("No", "Yes"),
        'For the sentence: "{text}", is it a complaint?',
    ),
    (
        45,
        "empathy#empathy",
        "REG",
        "empathy",
        ("empathy",),
        (),
        'Determine the degree of empathy of the given sentence: "{text}". The score should be ranging from 0.0 to '
        "7.0, and can be a decimal.",
    ),
    (
        46,
        "empathy#empathy_bin",
        "CLS",
        "empathy",
        ("not empathy", "empathy"),
        ("No", "Yes"),
        'For the sentence: "{text}", is it expressing empathy?',
    ),
    (
        47,
        "hayati_politeness",
        "CLS",
        "hayati_politeness",
        ("impolite", "polite"),
        ("No", "Yes"),
        'For the sentence: "{text}", is it polite?',
    ),
    (
        48,
        "questionintimacy",
        "CLS",
        "questionintimacy",
        ("Very-intimate", "Intimate", "Somewhat-intimate", "Not-very-intimate", "Not-intimate", "Not-intimate-at-all"),
        ("Very intimate", "Intimate", "Somewhat intimate", "Not very intimate", "Not intimate", "Not intimate at all"),
        'For the sentence: "{text}", how intimate do you think it is?',
    ),
    (
        49,
        "stanfordpoliteness",
        "CLS",
        "stanfordpoliteness",
        ("polite", "impolite"),
        ("Yes", "No"),
        'For the sentence: "{text}", is it polite?',
    ),
)

TASKS = build_tasks(CATEGORY, ROWS)
