"""SuperTweetEval regression (intimacy, similarity): a number, scored by Spearman's rho, negative values
capped to 0 (the paper) and uncapped (the official script); an unread answer counts as 0 (the script's rule)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mmsoc.tasks.kinds._ste import SteKind
from mmsoc.tasks.kinds.base import INVALID, Parsed
from mmsoc.tasks.spec import TaskSpec


class Score(SteKind):
    name = "ste_score"

    def parse(self, spec: TaskSpec, raw: str, strict: bool) -> Parsed:
        from mmsoc.tasks.supertweeteval.answers import lenient_number, official_number

        value = (official_number if strict else lenient_number)(raw)
        return INVALID if value is None else Parsed(value, True)

    def target(self, spec: TaskSpec, label: Any) -> str:
        return f"{float(label):g}"

    def random_answer(self, spec: TaskSpec, rng: np.random.Generator) -> str:
        return str(int(rng.integers(0, 6)))

    def check_reference(self, spec: TaskSpec, value: Any) -> Any:
        return float(value)

    def metric_input(self, spec: TaskSpec, predictions: Sequence[Any], references: Sequence[Any]) -> Any:
        from mmsoc.metrics.suite_inputs import NumberInput
        from mmsoc.tasks.supertweeteval.answers import official_number

        def number(value: Any) -> float:
            found = official_number(value) if isinstance(value, str) else value
            return 0.0 if found is None else float(found)

        return NumberInput(np.array(references, dtype=np.float64), np.array([number(p) for p in predictions]))


KIND = Score()
