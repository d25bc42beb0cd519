"""The paper's random baseline: a uniformly random allowed answer, seeded per (task, item, seed)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mmsoc.backends.base import GenerationSettings, Request
from mmsoc.tasks.table import get_task


class RandomBackend:
    """Classification: one label drawn uniformly. Tagging: 1-3 distinct topics drawn uniformly.

    Text tasks (OCR, descriptions) have no label set, so the response is empty (scored as such).
    """

    name = "random"

    def generate(self, requests: Sequence[Request], settings: GenerationSettings) -> list[str]:
        return [self._answer(r) for r in requests]

    @staticmethod
    def _answer(request: Request) -> str:
        spec = get_task(request.task)
        rng = np.random.default_rng(request.rng_seed)
        if spec.kind == "classification":
            return str(rng.choice(spec.labels))
        if spec.kind == "multilabel":
            return ",".join(rng.choice(spec.labels, size=int(rng.integers(1, 4)), replace=False))
        return ""
