"""SuperTweetEval hate speech (7 hate classes and ``not_hate``), scored by the paper's combined F1 and by the
official script's (its micro and macro swapped)."""

from __future__ import annotations

from mmsoc.tasks.kinds.ste_yes_no import NamedClasses


class Hate(NamedClasses):
    name = "ste_hate"


KIND = Hate()
