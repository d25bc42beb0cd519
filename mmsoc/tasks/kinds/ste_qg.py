"""SuperTweetEval question generation (TweetQG): a question, scored by METEOR."""

from __future__ import annotations

from mmsoc.tasks.kinds.ste_qa import FreeText


class Question(FreeText):
    name = "ste_qg"
    answers = False


KIND = Question()
