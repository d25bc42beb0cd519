"""Bias probes: train on one input setting, then score the eval set as it is and under each
perturbation, in A4 and A2. A sound dataset keeps an answer-only probe at chance."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
from rich.progress import Progress

from desiq.perturb import perturb
from desiq.probe_backends import ProbeBackend
from desiq.siq import to_a2
from desiq.splits import build_split
from mmsoc.metrics.bootstrap import cluster_bootstrap_ci
from desiq.records import MCQAItem

PERTURBATIONS = ("original", "RIWI", "RIWA", "RAWI", "RAWA")
CONFIGS = ("A4", "A2")


@dataclass(frozen=True)
class ProbeRow:
    """Accuracy of the probe on one (data, perturbation, config) cell."""

    perturbation: str
    config: str
    accuracy: float
    chance: float
    n: int
    ci95: tuple[float, float]
    data: str = "original"
    """``original`` or ``desiq_d`` (the probe retrained and scored on DeSIQ_d rebuilds)."""


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

    def to_json(self) -> dict:
        head = {k: v for k, v in asdict(self).items() if k != "results"}
        return {**head, "results": [{**asdict(r), "ci95": list(r.ci95)} for r in self.results]}

    def get(self, perturbation: str, config: str = "A4", data: str = "original") -> ProbeRow:
        return next(r for r in self.results
                    if (r.perturbation, r.config, r.data) == (perturbation, config, data))


def evaluate(backend: ProbeBackend, items: Sequence[MCQAItem], perturbation: str, config: str,
             seed: int, data: str = "original") -> ProbeRow:
    """Score one cell: perturb the items (A2: their binary pairs), pick each item's top option."""
    base = list(items) if config == "A4" else to_a2(items)
    if perturbation != "original":
        base = perturb(base, perturbation, seed=seed).items
    scores = backend.score(base)
    correct = np.array([int(np.argmax(s)) == item.answer_idx for s, item in zip(scores, base)])
    return ProbeRow(
        perturbation=perturbation, config=config, accuracy=float(correct.mean()),
        chance=float(np.mean([1 / len(item.options) for item in base])), n=len(base),
        ci95=cluster_bootstrap_ci(correct, [item.video for item in base], seed=seed), data=data)


def run_probe(backend: ProbeBackend, train: Sequence[MCQAItem], eval_items: Sequence[MCQAItem], inputs: str,
              seed: int = 0, names: tuple[str, str] = ("train", "eval"), probe_name: str = "") -> ProbeReport:
    """Train ``backend`` on ``train`` and fill the perturbation table on ``eval_items``."""
    perturbations = PERTURBATIONS + (("NCAQ",) if "q" in inputs.split("+") else ())
    report = ProbeReport(inputs, probe_name or backend.name, seed, names[0], names[1], len(train), len(eval_items))
    with Progress(transient=True) as progress:
        task = progress.add_task(f"training {report.probe} on {len(train)} questions",
                                 total=1 + len(perturbations) * len(CONFIGS))
        backend.fit(train, inputs, seed)
        progress.advance(task)
        for config in CONFIGS:
            for name in perturbations:
                progress.update(task, description=f"scoring {name} {config}")
                report.results.append(evaluate(backend, eval_items, name, config, seed))
                progress.advance(task)
    return report


def debiased_rows(backend: ProbeBackend, train: Sequence[MCQAItem], eval_items: Sequence[MCQAItem],
                  inputs: str, seed: int = 0) -> list[ProbeRow]:
    """Retrain ``backend`` from scratch on DeSIQ_d(train) and score DeSIQ_d(eval) in A4 and A2.

    The answer-only bias should be gone there: every distractor is another question's correct answer.
    """
    with Progress(transient=True) as progress:
        progress.add_task("training and scoring on DeSIQ_d", total=None)
        backend.fit(build_split(train, "d", seed).items, inputs, seed)
        rebuilt = build_split(eval_items, "d", seed + 1).items
        return [evaluate(backend, rebuilt, "original", config, seed, data="desiq_d") for config in CONFIGS]
