"""SuperTweetEval target sentiment (5 ordered classes), scored by 1 - macro-averaged MAE (the paper) and by
macro-F1 (the official GitHub script)."""

from __future__ import annotations

from mmsoc.tasks.kinds.ste_yes_no import YesNo


class Sentiment(YesNo):
    name = "ste_sentiment"


KIND = Sentiment()
