"""SuperTweetEval regression (intimacy, similarity): a number, scored by Spearman's rho, negative values
capped to 0 (the paper) and uncapped (the official script); an unread answer counts as 0 (the script's rule,
counted as ``unread_predictions``). NaN and infinities are refused as references and as predictions: the
script would pass them to ``spearmanr``, whose rho is then NaN for the whole task."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from mmsoc.tasks.kinds._ste import SteKind
from mmsoc.tasks.kinds.base import INVALID, Parsed, finite_number
from mmsoc.tasks.spec import TaskSpec

if TYPE_CHECKING:
    from mmsoc.metrics.suite_inputs import NumberInput
    from mmsoc.tasks.supertweeteval.sample import SampleDraw


class Score(SteKind[float]):
    name = "ste_score"
    gold_field = "gold_score"
    unread_rule = "scored as 0, as the official script scores a line that float() cannot read"

    def parse(self, spec: TaskSpec, raw: str, strict: bool) -> Parsed:
        from mmsoc.tasks.supertweeteval.answers import lenient_number, official_number

        value = (official_number if strict else lenient_number)(raw)
        return INVALID if value is None else Parsed(value, True)

    def target(self, spec: TaskSpec, label: Any) -> str:
        return f"{float(label):g}"

    def random_answer(self, spec: TaskSpec, rng: np.random.Generator) -> str:
        return str(int(rng.integers(0, 6)))

    def check_reference(self, spec: TaskSpec, value: object) -> float:
        return finite_number(value)

    def check_prediction(self, spec: TaskSpec, value: object) -> str | float | None:
        """A number, or text read as the script reads it (unreadable text counts as 0, the script's rule);
        NaN and infinities, as numbers or as text (``nan``, ``inf``), are refused: they have no rank."""
        from mmsoc.tasks.supertweeteval.answers import non_finite_number

        if value is None or (isinstance(value, str) and not non_finite_number(value)):
            return value
        return finite_number(value)

    def checked_input(self, spec: TaskSpec, predictions: Sequence[object], references: list[float]) -> NumberInput:
        from mmsoc.metrics.suite_inputs import NumberInput
        from mmsoc.tasks.supertweeteval.answers import official_number

        def number(value: object) -> float:
            found = official_number(value) if isinstance(value, str) else value
            return 0.0 if found is None else finite_number(found)

        return NumberInput(np.array(references, dtype=np.float64), np.array([number(p) for p in predictions]))

    def read_gold(self, row: dict[str, Any], names: tuple[str, ...]) -> float:
        return finite_number(row[self.gold_field])

    def sample_row(self, draw: SampleDraw) -> dict[str, object]:
        from mmsoc.tasks.supertweeteval.sample import score_row

        return score_row(draw)


KIND = Score()
