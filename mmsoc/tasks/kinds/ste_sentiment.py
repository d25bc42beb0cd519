"""SuperTweetEval target sentiment (5 ordered classes), scored by 1 - macro-averaged MAE (the paper) and by
macro-F1 (the official GitHub script)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mmsoc.tasks.kinds.ste_yes_no import NamedClasses

if TYPE_CHECKING:
    from mmsoc.tasks.supertweeteval.sample import SampleDraw


class Sentiment(NamedClasses):
    name = "ste_sentiment"

    def sample_row(self, draw: SampleDraw) -> dict[str, Any]:
        """A class row with the target the sentiment is about."""
        return {**super().sample_row(draw), "target": draw.thing}


KIND = Sentiment()
