"""SuperTweetEval emoji prediction (100 emoji): up to five emoji, best first, scored by accuracy at top 5.

The emoji come from the data (``tweet_emoji/map.txt``), not the task table; references are emoji strings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mmsoc.tasks.kinds._ste import SteKind
from mmsoc.tasks.kinds.base import INVALID, Parsed
from mmsoc.tasks.spec import TaskSpec


class Emoji(SteKind):
    name = "ste_emoji"

    def parse(self, spec: TaskSpec, raw: str, strict: bool) -> Parsed:
        from mmsoc.tasks.supertweeteval.answers import lenient_emoji, official_emoji

        if strict:
            found = official_emoji(raw)
            return Parsed(found, len(found) == 5 and all(found))
        found = lenient_emoji(raw)
        return Parsed(found, True) if found else INVALID

    def target(self, spec: TaskSpec, label: Any) -> str:
        return str(label)

    def check_reference(self, spec: TaskSpec, value: Any) -> Any:
        if not isinstance(value, str) or not value:
            raise ValueError("an emoji reference is the emoji itself")
        return value

    def metric_input(self, spec: TaskSpec, predictions: Sequence[Any], references: Sequence[Any]) -> Any:
        from mmsoc.metrics.suite_inputs import TopKInput
        from mmsoc.tasks.supertweeteval.answers import official_emoji

        lists = [official_emoji(p) if isinstance(p, str) else list(p or ()) for p in predictions]
        return TopKInput(list(references), [[str(e) for e in found][:5] for found in lists])


KIND = Emoji()
