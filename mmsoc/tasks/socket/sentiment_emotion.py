"""SocKET tasks of the Sentiment & Emotion category, as data: rows as ``mmsoc.tasks.socket.table`` describes them."""

from __future__ import annotations

from mmsoc.tasks.socket.table import build_tasks

CATEGORY = "Sentiment & Emotion"
EMOJI = (
    "❤",
    "😍",
    "😂",
    "💕",
    "🔥",
    "😊",
    "😎",
    "✨",
    "💙",
    "😘",
    "📷",
    "🇺🇸",
    "☀",
    "💜",
    "😉",
    "💯",
    "😁",
    "🎄",
    "📸",
    "😜",
)
"""tweet_emoji's 20 labels, which are also its options."""
CROWDFLOWER = (
    "empty",
    "sadness",
    "enthusiasm",
    "neutral",
    "worry",
    "love",
    "fun",
    "hate",
    "happiness",
    "relief",
    "boredom",
    "surprise",
    "anger",
)
"""crowdflower's 13 labels, which are also its options."""

ROWS = (
    (
        31,
        "crowdflower",
        "CLS",
        "crowdflower",
        CROWDFLOWER,
        CROWDFLOWER,
        'For the sentence: "{text}", what is its emotion?',
    ),
    (
        32,
        "dailydialog",
        "CLS",
        "dailydialog",
        ("noemotion", "anger", "disgust", "fear", "happiness", "sadness", "surprise"),
        ("no emotion", "anger", "disgust", "fear", "happiness", "sadness", "surprise"),
        'For the given conversation, "{text}", what is its emotion?',
    ),
    (
        33,
        "emobank#arousal",
        "REG",
        "emobank",
        ("arousal(excited)",),
        (),
        'Given the VAD model of emotion, determine the degree of arousal of the given sentence: "{text}". The score '
        "should be ranging from 0.0 to 5.0, and can be a decimal.",
    ),
    (
        34,
        "emobank#dominance",
        "REG",
        "emobank",
        ("dominance(being_in_control)",),
        (),
        'Given the VAD model of emotion, determine the degree of dominance of the given sentence: "{text}". The '
        "score should be ranging from 0.0 to 5.0, and can be a decimal.",
    ),
    (
        35,
        "emobank#valence",
        "REG",
        "emobank",
        ("valence(positive)",),
        (),
        'Given the VAD model of emotion, determine the degree of valence of the given sentence: "{text}". The score '
        "should be ranging from 0.0 to 5.0, and can be a decimal.",
    ),
    (
        36,
        "emotion-span",
        "SPAN",
        "emotion-span",
        ("cause",),
        (),
        'In the sentence: "{text}", which part of it expresses strong emotion?',
    ),
    (
        37,
        "empathy#distress",
        "REG",
        "empathy",
        ("distress",),
        (),
        'Determine the degree of distress of the given sentence: "{text}". The score should be ranging from 0.0 to '
        "7.0, and can be a decimal.",
    ),
    (
        38,
        "empathy#distress_bin",
        "CLS",
        "empathy",
        ("not distress", "distress bin"),
        ("No", "Yes"),
        'For the sentence: "{text}", is it showing distress?',
    ),
    (
        39,
        "same-side-pairs",
        "PAIR",
        "same-side-pairs",
        ("not same side", "same side"),
        ("No", "Yes"),
        'For the sentences: "{text_a}" and "{text_b}", are they on the same side?',
    ),
    (
        40,
        "sentitreebank",
        "CLS",
        "sentitreebank",
        ("positive", "negative"),
        ("Yes", "No"),
        'For the sentence: "{text}", is it positive?',
    ),
    (
        41,
        "tweet_emoji",
        "CLS",
        "tweet_emoji",
        EMOJI,
        EMOJI,
        'For the sentence: "{text}", what is the emoji that can be added to it?',
    ),
    (
        42,
        "tweet_emotion",
        "CLS",
        "tweet_emotion",
        ("anger", "joy", "optimism", "sadness"),
        ("anger", "joy", "optimism", "sadness"),
        'For the sentence: "{text}", what is its emotion?',
    ),
    (
        43,
        "tweet_sentiment",
        "CLS",
        "tweet_sentiment",
        ("negative", "neutral", "positive"),
        ("negative", "neutral", "positive"),
        'For the sentence: "{text}", what is its sentiment?',
    ),
)

TASKS = build_tasks(CATEGORY, ROWS)
