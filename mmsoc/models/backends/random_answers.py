"""The paper's random baseline: a uniformly random allowed answer, seeded per (task, item, seed)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mmsoc.models.base import GenerationSettings, OptionScores, Request
from mmsoc.models.registry import ModelEntry, ModelOptions


class RandomModel:
    """Each task kind draws its own random answer (a label, 1-3 topics; nothing for free text);
    option scoring picks an option uniformly. Randomness is owned by each request."""

    name = "random"
    modalities = frozenset({"text"})

    def generate(self, requests: Sequence[Request], settings: GenerationSettings) -> list[str]:
        from mmsoc.tasks import get_task, kind_of

        out = []
        for request in requests:
            spec = get_task(request.task)
            out.append(kind_of(spec).random_answer(spec, np.random.default_rng(request.rng_seed)))
        return out

    def score_options(self, requests: Sequence[Request], options: Sequence[Sequence[str]]) -> list[OptionScores]:
        return [
            OptionScores(
                tuple(float(x) for x in np.random.default_rng(r.rng_seed).random(len(opts))),
                tuple(len(o) for o in opts),
            )
            for r, opts in zip(requests, options)
        ]


def build(arg: str, options: ModelOptions) -> RandomModel:
    return RandomModel()


MODEL = ModelEntry(
    "random",
    build,
    frozenset({"text"}),
    "a uniformly random allowed answer, seeded per item (the paper's random baseline)",
    free_text=False,
)
