"""Bias probes: train on one input setting, then score the eval set as it is and under each
perturbation of ``desiq.perturbations``, in A4 and A2. A sound dataset keeps an answer-only probe at chance."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import Progress

from desiq.inputs import InputSetting
from desiq.perturb import perturb
from desiq.perturbations import PERTURBATIONS, SPLITS, Perturbation, Target
from desiq.probes import ProbeBackend
from desiq.records import MCQAItem, to_a2
from desiq.splits import build_split
from mmsoc.metrics.bootstrap import cluster_bootstrap_ci

ORIGINAL = "original"
CONFIGS = ("A4", "A2")
DEBIASED = "d"
"""The DeSIQ split the probe is retrained on (``debiased_rows``)."""


@dataclass(frozen=True)
class ProbeRow:
    """Accuracy of the probe on one (data, perturbation, config) cell."""

    perturbation: str
    config: str
    accuracy: float
    chance: float
    n: int
    ci95: tuple[float, float]
    data: str = ORIGINAL
    """``original`` or the marker of a DeSIQ split (the probe retrained and scored on its rebuilds)."""


@dataclass
class ProbeReport:
    inputs: str
    probe: str
    seed: int
    train: str
    eval: str
    n_train: int
    n_eval: int
    results: list[ProbeRow] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        head = {k: v for k, v in asdict(self).items() if k != "results"}
        return {**head, "results": [{**asdict(r), "ci95": list(r.ci95)} for r in self.results]}

    def get(self, perturbation: str, config: str = "A4", data: str = ORIGINAL) -> ProbeRow:
        return next(r for r in self.results
                    if (r.perturbation, r.config, r.data) == (perturbation, config, data))


def scored_perturbations(inputs: str) -> list[Perturbation]:
    """The perturbations a probe on ``inputs`` is scored under: dropping the question only matters to
    a probe that sees it."""
    sees_question = InputSetting.parse(inputs).question
    return [p for p in PERTURBATIONS.values() if sees_question or p.replaces is not Target.question]


def evaluate(backend: ProbeBackend, items: Sequence[MCQAItem], perturbation: Perturbation | str | None,
             config: str, seed: int, data: str = ORIGINAL) -> ProbeRow:
    """Score one cell: perturb the items (A2: their binary pairs), pick each item's top option.

    ``perturbation``: a record, the name of one, or None / ``original`` for the items as they are.
    """
    if isinstance(perturbation, str):
        perturbation = None if perturbation == ORIGINAL else PERTURBATIONS[perturbation]
    base = list(items) if config == "A4" else to_a2(items)
    if perturbation is not None:
        base = perturb(base, perturbation, seed=seed).items
    scores = backend.score(base)
    correct = np.array([int(np.argmax(s)) == item.answer_idx for s, item in zip(scores, base)])
    return ProbeRow(
        perturbation=perturbation.name if perturbation else ORIGINAL, config=config, accuracy=float(correct.mean()),
        chance=float(np.mean([1 / len(item.options) for item in base])), n=len(base),
        ci95=cluster_bootstrap_ci(correct, [item.video for item in base], seed=seed), data=data)


def _progress() -> Progress:
    return Progress(console=Console(stderr=True), transient=True)


def run_probe(backend: ProbeBackend, train: Sequence[MCQAItem], eval_items: Sequence[MCQAItem], inputs: str,
              seed: int = 0, names: tuple[str, str] = ("train", "eval"), probe_name: str = "") -> ProbeReport:
    """Train ``backend`` on ``train`` and fill the perturbation table on ``eval_items``."""
    cells: list[Perturbation | None] = [None, *scored_perturbations(inputs)]
    report = ProbeReport(inputs, probe_name or backend.name, seed, names[0], names[1], len(train), len(eval_items))
    with _progress() as progress:
        task = progress.add_task(f"training {report.probe} on {len(train)} questions",
                                 total=1 + len(cells) * len(CONFIGS))
        backend.fit(train, inputs, seed)
        progress.advance(task)
        for config in CONFIGS:
            for cell in cells:
                progress.update(task, description=f"scoring {cell.name if cell else ORIGINAL} {config}")
                report.results.append(evaluate(backend, eval_items, cell, config, seed))
                progress.advance(task)
    return report


def debiased_rows(backend: ProbeBackend, train: Sequence[MCQAItem], eval_items: Sequence[MCQAItem],
                  inputs: str, seed: int = 0) -> list[ProbeRow]:
    """Retrain ``backend`` from scratch on DeSIQ_d(train) and score DeSIQ_d(eval) in A4 and A2.

    Every distractor there is another question's correct answer, so an answer-only probe should
    fall to chance.
    """
    marker = SPLITS[DEBIASED].marker or DEBIASED
    with _progress() as progress:
        progress.add_task(f"training and scoring on {SPLITS[DEBIASED].name}", total=None)
        backend.fit(build_split(train, DEBIASED, seed).items, inputs, seed)
        rebuilt = build_split(eval_items, DEBIASED, seed + 1).items
        return [evaluate(backend, rebuilt, None, config, seed, data=marker) for config in CONFIGS]
