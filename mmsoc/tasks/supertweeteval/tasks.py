"""The twelve SuperTweetEval tasks as data: kind, labels, the paper's zero-shot prompt (App. C), headline.

Headlines are the paper's metrics (§4.2), on a 0-1 scale (the paper prints 0-100): 1 - MAE^M capped at 0
(sentiment), macro-F1 (topic, emotion; NER over entity types), accuracy (NERD, TempoWiC), accuracy at
top 5 (emoji), Spearman capped at 0 (intimacy, similarity), answer F1 (QA), METEOR (QG) and the combined
F1 of hate speech. Prompts fill ``{text}``, ``{text_1}``, ``{text_2}``, ``{target}``, ``{definition}``
and ``{context}`` (for QA the question, for QG the answer) from the item.
"""

from __future__ import annotations

from mmsoc.tasks.spec import TaskSpec

SUITE = "supertweeteval"
FOLDER = "data"
"""The hub repository's data folder (``cardiffnlp/super_tweeteval``), the dataset every task reads."""
PROMPT_VERSION = "supertweeteval-appendix-c"

SENTIMENT = ("strongly negative", "negative", "negative or neutral", "positive", "strongly positive")
HATE = (
    "hate_gender",
    "hate_race",
    "hate_sexuality",
    "hate_religion",
    "hate_origin",
    "hate_disability",
    "hate_age",
    "not_hate",
)
EMOTIONS = (
    "anger",
    "anticipation",
    "disgust",
    "fear",
    "joy",
    "love",
    "optimism",
    "pessimism",
    "sadness",
    "surprise",
    "trust",
)
TOPICS = (
    "arts_&_culture",
    "business_&_entrepreneurs",
    "celebrity_&_pop_culture",
    "diaries_&_daily_life",
    "family",
    "fashion_&_style",
    "film_tv_&_video",
    "fitness_&_health",
    "food_&_dining",
    "gaming",
    "learning_&_educational",
    "music",
    "news_&_social_concern",
    "other_hobbies",
    "relationships",
    "science_&_technology",
    "sports",
    "travel_&_adventure",
    "youth_&_student_life",
)
NER_TAGS = (
    "B-corporation",
    "B-creative_work",
    "B-event",
    "B-group",
    "B-location",
    "B-person",
    "B-product",
    "I-corporation",
    "I-creative_work",
    "I-event",
    "I-group",
    "I-location",
    "I-person",
    "I-product",
    "O",
)
"""The tag ids of ``gold_label_sequence`` (the official tweet_ner7.py's list)."""
YES_NO = ("no", "yes")

_SCALE = 'Give the answer on a scale from 0 - 5, where 0 is "{low}" and 5 is "{high}".'
_NER = (
    "Entity Definition:\n1. corporation: Names of corporations (e.g. Google).\n"
    "2. creative_work: Names of creative works (e.g. Bohemian Rhapsody).\n"
    "3. event: Names of events (e.g. Christmas, Super Bowl).\n"
    "4. group: Names of groups (e.g. Nirvana, San Diego Padres).\n"
    "5. location: Names that are locations (e.g. France).\n6. person: Names of people (e.g. Virginia Wade).\n"
    "7. product: Name of products (e.g. iPhone).\n"
    "Identify and categorize named entities in the following tweet:\nTweet: {text}"
)


def _task(order: int, name: str, kind: str, prompt: str, labels: tuple[str, ...], headline: str) -> TaskSpec:
    return TaskSpec(
        f"{SUITE}/{name}",
        name,
        kind,
        prompt,
        labels,
        headline=headline,
        sources=(FOLDER,),
        suite=SUITE,
        prompt_version=PROMPT_VERSION,
        order=order,
    )


TASKS = (
    _task(1, "tweet_ner7", "ste_ner", _NER, NER_TAGS, "macro_f1"),
    _task(
        2,
        "tweet_emotion",
        "ste_multilabel",
        "Which emotions from the options below are expressed in the following tweet?\nTweet: {text}\nOptions: [ "
        + ", ".join(f"'{e}'" for e in EMOTIONS)
        + " ]",
        EMOTIONS,
        "macro_f1",
    ),
    _task(
        3,
        "tweet_qg",
        "ste_qg",
        "Write a question based on this tweet and context.\nTweet: {text}\nContext: {context}\nQuestion:",
        (),
        "meteor",
    ),
    _task(
        4,
        "tweet_nerd",
        "ste_yes_no",
        "Based on the tweet is the definition of the target correct?\nTweet: {text}\nTarget: {target}\n"
        "Definition: {definition}\nOptions: [ yes, no ]",
        YES_NO,
        "accuracy",
    ),
    _task(
        5,
        "tweet_sentiment",
        "ste_sentiment",
        "What is the sentiment of this tweet regarding the target?\nTweet: {text}\nTarget: {target}\nOptions: [ "
        + ", ".join(f"'{s}'" for s in SENTIMENT)
        + " ]",
        SENTIMENT,
        "mae_m_score",
    ),
    _task(
        6,
        "tempo_wic",
        "ste_yes_no",
        'Tweet 1: {text_1}\nTweet 2: {text_2}\nDoes the word "{target}" mean the same thing in these two sentences?'
        "\nOptions: [ yes, no ]",
        YES_NO,
        "accuracy",
    ),
    _task(
        7,
        "tweet_emoji",
        "ste_emoji",
        "Select the top 5 emojis that best describe the following tweet:\nTweet: {text}",
        (),
        "accuracy_top5",
    ),
    _task(
        8,
        "tweet_intimacy",
        "ste_score",
        "How intimate is the following tweet?\nTweet: {text}\n"
        + _SCALE.format(low="not intimate at all", high="very intimate"),
        (),
        "spearman",
    ),
    _task(9, "tweet_qa", "ste_qa", "Answer based on context:\nContext: {text}\nQuestion: {context}\nAnswer:", (), "f1"),
    _task(
        10,
        "tweet_topic",
        "ste_multilabel",
        "Which topics from the options below are present in the following tweet?\nTweet: {text}\nOptions: [ "
        + ", ".join(TOPICS)
        + " ]",
        TOPICS,
        "macro_f1",
    ),
    _task(
        11,
        "tweet_hate",
        "ste_hate",
        "Classify the following tweet as hate speech based on the options.\nTweet: {text}\nOptions: [ "
        + ", ".join(HATE)
        + " ]",
        HATE,
        "combined_f1",
    ),
    _task(
        12,
        "tweet_similarity",
        "ste_score",
        "How similar are the following two tweets?\nTweet 1: {text_1}\nTweet 2: {text_2}\n"
        + _SCALE.format(low="not similar at all", high="means the same thing"),
        (),
        "spearman",
    ),
)

CLUSTERS = {
    "temporal": ("tweet_ner7", "tempo_wic", "tweet_topic", "tweet_nerd"),
    "temporal*": ("tempo_wic", "tweet_topic", "tweet_nerd"),
    "multi-label": ("tweet_topic", "tweet_emotion"),
    "multi-class": ("tweet_sentiment", "tweet_hate"),
    "regression": ("tweet_similarity", "tweet_intimacy", "tweet_sentiment"),
    "target-based": ("tweet_sentiment", "tempo_wic", "tweet_nerd"),
    "big-label": ("tweet_emoji", "tweet_topic"),
    "generation": ("tweet_qa", "tweet_qg"),
    "disambiguation": ("tempo_wic", "tweet_nerd"),
}
"""The paper's clusters (§7), task names."""
