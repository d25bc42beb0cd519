"""SuperTweetEval emoji prediction (100 emoji): up to five emoji, best first, scored by accuracy at top 5.

The emoji come from the data (``tweet_emoji/map.txt``), not the task table; references are emoji strings."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mmsoc.tasks.kinds._ste import SteKind, class_id
from mmsoc.tasks.kinds.base import INVALID, Parsed
from mmsoc.tasks.spec import TaskSpec

if TYPE_CHECKING:
    from mmsoc.metrics.suite_inputs import TopKInput
    from mmsoc.tasks.supertweeteval.sample import SampleDraw


class Emoji(SteKind[str]):
    name = "ste_emoji"
    gold_field = "gold_label"
    named_labels = True

    def parse(self, spec: TaskSpec, raw: str, strict: bool) -> Parsed:
        from mmsoc.tasks.supertweeteval.answers import lenient_emoji, official_emoji

        if strict:
            found = official_emoji(raw)
            return Parsed(found, len(found) == 5 and all(found))
        found = lenient_emoji(raw)
        return Parsed(found, True) if found else INVALID

    def target(self, spec: TaskSpec, label: object) -> str:
        return str(label)

    def check_reference(self, spec: TaskSpec, value: object) -> str:
        if not isinstance(value, str) or not value:
            raise ValueError("an emoji reference is the emoji itself")
        return value

    def checked_input(self, spec: TaskSpec, predictions: Sequence[Any], references: list[str]) -> TopKInput:
        from mmsoc.metrics.suite_inputs import TopKInput
        from mmsoc.tasks.supertweeteval.answers import official_emoji

        lists = [official_emoji(p) if isinstance(p, str) else list(p or ()) for p in predictions]
        return TopKInput(list(references), [[str(e) for e in found][:5] for found in lists])

    def read_gold(self, row: dict[str, Any], names: tuple[str, ...]) -> str:
        return names[class_id(row[self.gold_field])]

    def sample_row(self, draw: SampleDraw) -> dict[str, object]:
        from mmsoc.tasks.supertweeteval.sample import EMOJI, class_row

        return class_row(draw, len(EMOJI))

    def write_sample_files(self, folder: Path) -> None:
        from mmsoc.tasks.supertweeteval.sample import write_emoji_map

        write_emoji_map(folder)


KIND = Emoji()
