"""Bias probes: train on one input setting, then score the eval set as it is and under each
perturbation of ``desiq.perturbations``, in AK (all K options: A4 for Social-IQ) and A2. A sound dataset
keeps an answer-only probe at chance.

Which probe fills which row:

- ``original`` and the option perturbations (RIWI, RIWA, RAWI, RAWA): a probe trained on the training
  file with the report's inputs, scored on the eval file as it is and perturbed.
- ``NCAQ`` (the paper's "no context and question"): a probe trained *and* tested on the options only
  (inputs ``a``: no question, no transcript, video or audio). With inputs ``a`` the original row already
  is that experiment, so there is no separate NCAQ row.
- A2 columns: a probe trained on A2 pairs (the correct option against each incorrect one), not the AK
  probe; AK columns (A4 for Social-IQ, A3 or A5 for files with 3 or 5 options): a probe trained on the
  questions with all their options.
- DeSIQ rows (``data`` = ``desiq_d`` / ``desiq_s``): a probe retrained from scratch on the DeSIQ rebuild of
  the training file and scored on the rebuild of the eval file.

Scoring follows the paper's code: AK counts the top-scoring option (``np.argmax``, the first wins a tie,
as the official Social-IQ 2.0 code); A2 counts a pair only when the correct option scores strictly
higher (a tie is wrong, as the official ``calc_accuracy``). Each row's verdict comes from its test against
chance (``verdict``, ``finding``), never from its name; the rows of a table are judged as one family, and
every row but the original also against the original (``desiq.probe_verdicts``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Protocol

import numpy as np

from desiq.inputs import InputSetting
from desiq.perturbation_schemes import perturb
from desiq.perturbations import PERTURBATIONS, SPLITS, Perturbation
from desiq.probe_hits import correct, shared_hits, shares
from desiq.probe_verdicts import Judgement, Outcomes, comparison_json, unjudged_finding, verdict_words
from desiq.probes import ProbeBackend
from desiq.probes.ties import tied
from desiq.records import MCQAItem, configs, in_config, option_count
from desiq.splits import build_split
from mmsoc.core.progress import steps
from mmsoc.metrics.bootstrap import cluster_bootstrap_ci
from mmsoc.metrics.verdict import MIN_CLUSTERS, MIN_EFFECT, enough

if TYPE_CHECKING:
    from desiq.probes.heuristics import HeuristicReport, HeuristicRow

ORIGINAL = "original"
CONFIGS = ("A4", "A2")
"""Social-IQ's configurations; a file with K options has ``AK`` and ``A2`` (``desiq.records.configs``)."""
OPTIONS_ONLY = "a"
DEBIASED = ("d", "s")
"""The DeSIQ splits the probe is retrained on (``debiased_rows``), side by side."""
TIES_SHOWN = 0.01
"""The share of a row's items beyond which its tied items are shown beside its accuracy."""


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
    inputs: str = ""
    """What the probe behind this row saw (``a`` for NCAQ)."""
    videos: int | None = None
    """The videos the items come from (the clusters of the interval)."""
    min_videos: int = MIN_CLUSTERS
    """The fewest videos a verdict is drawn from."""
    min_effect: float = MIN_EFFECT
    """The smallest effect (points) a finding calls more than negligible."""
    outcomes: Outcomes | None = field(default=None, repr=False, compare=False)
    """Per scored unit: its question, hit and video (what the table's tests resample)."""
    judgement: Judgement | None = None
    """The verdict from the table's family (``desiq.probe_verdicts.judge_rows``); None: judged alone."""
    ties: int = 0
    """The scored items whose top score is shared by two options or more."""
    accuracy_shared: float | None = None
    """The accuracy with each tie counted as a share (``desiq.probes.ties``); the headline ``accuracy`` keeps
    the paper's rule."""

    family = "probe"
    """What a perturbation or rebuild row is compared with: the original row of the same family."""

    @property
    def finding(self) -> str:
        return finding(self)

    @property
    def verdict(self) -> str:
        return verdict(self)


class Cell(Protocol):
    """A probe's or a shortcut's row, as its verdict reads it."""

    @property
    def accuracy(self) -> float: ...
    @property
    def chance(self) -> float: ...
    @property
    def ci95(self) -> tuple[float, float]: ...
    @property
    def videos(self) -> int | None: ...
    @property
    def min_videos(self) -> int: ...
    @property
    def min_effect(self) -> float: ...
    @property
    def judgement(self) -> Judgement | None: ...
    @property
    def outcomes(self) -> Outcomes | None: ...


def finding(row: Cell) -> str:
    """The row's finding: its family's judgement, or its own 95% interval where it was judged alone."""
    if row.judgement is not None:
        return row.judgement.finding
    return unjudged_finding(row.accuracy, row.chance, row.ci95, row.videos, row.min_videos, row.min_effect)


def verdict(row: Cell) -> str:
    """The row's finding in words, with the interval it was read from (the adjusted one where judged in a
    family), e.g. "above chance: [51.2, 58.0] excludes 25%", and the figure judged where ties make it differ
    from the row's accuracy."""
    if row.judgement is None or row.outcomes is None or not len(row.outcomes.hits):
        return verdict_words(
            row.accuracy, row.chance, row.ci95, finding(row), row.videos, row.min_videos, row.min_effect
        )
    judged = float(np.mean(row.outcomes.hits))
    words = verdict_words(
        judged, row.chance, row.judgement.ci_adjusted, finding(row), row.videos, row.min_videos, row.min_effect
    )
    return words if abs(judged - row.accuracy) < 5e-5 else f"{words} (ties as a share: {100 * judged:.2f}%)"


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
    configs: tuple[str, ...] = CONFIGS
    """The configurations of the rows: all options first (``AK``), then ``A2``."""
    shortcuts: HeuristicReport | None = None
    """The shortcut battery on the same questions, beside the probe."""

    def to_json(self) -> dict[str, object]:
        head: dict[str, object] = {
            f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("results", "shortcuts")
        }
        head["configs"] = list(self.configs)
        battery = {"shortcuts": self.shortcuts.to_json()} if self.shortcuts else {}
        return {**head, "results": [row_json(r) for r in self.results], **battery}

    def get(self, perturbation: str, config: str | None = None, data: str = ORIGINAL) -> ProbeRow:
        """The row of one cell; ``config`` None: all options (``AK``)."""
        config = config or self.configs[0]
        return next(r for r in self.results if (r.perturbation, r.config, r.data) == (perturbation, config, data))


def row_json(row: ProbeRow | HeuristicRow) -> dict[str, object]:
    """A row (a probe's or a shortcut's) as ``probe.json`` holds it: no interval where there are too few
    videos to draw one; ``ci95`` raw and ``ci_adjusted`` family-wise, ``finding`` beside the ``verdict``
    words, ``vs_original`` for every row but the original, and, where ties make it differ from ``accuracy``,
    the figure the verdict reads (``accuracy_ties_as_share``, ``ci95_ties_as_share``)."""
    plain = {f.name: getattr(row, f.name) for f in fields(row) if f.name not in ("outcomes", "judgement")}
    shown = enough(row.videos, row.min_videos)
    out = {**plain, "ci95": list(row.ci95) if shown else None}
    judged = row.judgement
    if judged is not None and row.outcomes is not None and len(row.outcomes.hits):
        share = float(np.mean(row.outcomes.hits))
        if abs(share - row.accuracy) >= 5e-5:  # ties: the verdict reads them as a share
            out["accuracy_ties_as_share"] = share
            out["ci95_ties_as_share"] = list(judged.ci95) if shown and judged.ci95 else None
    out["ci_adjusted"] = list(judged.ci_adjusted) if judged is not None and judged.ci_adjusted else None
    out["p_adjusted"] = judged.p_adjusted if judged is not None else None
    out["finding"], out["verdict"] = row.finding, row.verdict
    if judged is not None and judged.vs_original is not None:
        out["vs_original"] = comparison_json(judged.vs_original)
    return out


def accuracy_text(row: ProbeRow | HeuristicRow) -> str:
    """Accuracy in % with its interval (none from too few videos), and the tied items where they exceed
    ``TIES_SHOWN`` of the row (with the accuracy that counts them as a share, where the headline does not)."""
    low, high = row.ci95
    interval = f" [{100 * low:.1f}, {100 * high:.1f}]" if enough(row.videos, row.min_videos) else ""
    text = f"{100 * row.accuracy:.2f}{interval}"
    if row.ties <= TIES_SHOWN * row.n:
        return text
    shared = row.accuracy_shared if isinstance(row, ProbeRow) else None
    return text + f"; {row.ties} tied" + (f" ({100 * shared:.2f} counted as a share)" if shared is not None else "")


def needs_ncaq_row(inputs: str) -> bool:
    """Whether NCAQ needs a probe of its own: only when the report's probe sees more than the options."""
    setting = InputSetting.parse(inputs)
    return setting.question or bool(setting.media)


def scored_perturbations(inputs: str) -> list[Perturbation]:
    """The rows after ``original`` for a probe on ``inputs``, in the records' order."""
    return [p for p in PERTURBATIONS.values() if not p.retrains or needs_ncaq_row(inputs)]


def view(items: Sequence[MCQAItem], config: str) -> list[MCQAItem]:
    """The items as the configuration sees them: the questions with all options (``AK``) or A2 pairs."""
    return in_config(items, config)


def score_cell(
    backend: ProbeBackend,
    items: Sequence[MCQAItem],
    config: str,
    seed: int,
    name: str,
    data: str = ORIGINAL,
    inputs: str = "",
) -> ProbeRow:
    """Score already viewed (and perturbed) items; the interval resamples whole videos. The row's verdicts read
    its ties as a share (``shares``)."""
    scores = backend.score(items)
    hits = correct(scores, items, config)
    return ProbeRow(
        perturbation=name,
        config=config,
        accuracy=float(hits.mean()),
        chance=float(np.mean([1 / len(item.options) for item in items])),
        n=len(items),
        ci95=cluster_bootstrap_ci(hits, [item.video for item in items], seed=seed),
        data=data,
        inputs=inputs,
        videos=len({item.video for item in items}),
        outcomes=Outcomes.of(items, shares(scores, items)),
        ties=sum(tied(s.tolist()) for s in scores),
        accuracy_shared=float(shared_hits(scores, items).mean()),
    )


def evaluate(
    backend: ProbeBackend,
    items: Sequence[MCQAItem],
    perturbation: Perturbation | str | None,
    config: str,
    seed: int,
    data: str = ORIGINAL,
    inputs: str = "",
) -> ProbeRow:
    """Score one cell of a trained backend: view the items in ``config``, perturb them, score.

    ``perturbation``: a record, the name of one, or None / ``original`` for the items as they are.
    NCAQ is no perturbation of the eval set: ``run_probe`` scores it with an options-only probe.
    """
    if isinstance(perturbation, str):
        perturbation = None if perturbation == ORIGINAL else PERTURBATIONS[perturbation]
    if perturbation is not None and perturbation.retrains:
        raise ValueError(f"{perturbation.name} is scored by a probe trained on the options only (run_probe)")
    base = view(items, config)
    if perturbation is not None:
        base = perturb(base, perturbation, seed=seed).items
    return score_cell(backend, base, config, seed, perturbation.name if perturbation else ORIGINAL, data, inputs)


@dataclass(frozen=True)
class Version:
    """Another version of the eval file (a subset, a rebuild made elsewhere: ``desiq probe --compare``),
    scored beside it and compared with it question by question."""

    name: str
    items: list[MCQAItem]
    names: dict[str, str]
    """Its question ids mapped to the eval file's (``desiq.probe_verdicts.match_names``)."""


def compared(
    backend: ProbeBackend, version: Version, config: str, seed: int, inputs: str, data: str | None = None
) -> ProbeRow:
    """The trained ``backend`` on ``version`` as it is, its questions named as the eval file's."""
    row = evaluate(backend, version.items, None, config, seed, data=data or version.name, inputs=inputs)
    return replace(row, outcomes=row.outcomes.renamed(version.names) if row.outcomes else None)


def run_probe(
    backend: ProbeBackend,
    train: Sequence[MCQAItem],
    eval_items: Sequence[MCQAItem],
    inputs: str,
    seed: int = 0,
    names: tuple[str, str] = ("train", "eval"),
    probe_name: str = "",
    progress: bool = True,
    versions: Sequence[Version] = (),
) -> ProbeReport:
    """Fill the perturbation table on ``eval_items`` (see the module docstring for which probe fills which row),
    then the rows of each other ``versions`` of the eval file (``data``: its name) scored by the same probes.

    ``backend`` is refitted from scratch for each probe; it is left trained on the AK questions with
    ``inputs`` (the probe of the ``original`` AK row, e.g. for the t-SNE figure). ``progress``: a step per
    fit and per scored cell on stderr (``mmsoc.core.progress``).
    """
    inputs = InputSetting.parse(inputs).name
    options = [p for p in scored_perturbations(inputs) if not p.retrains]
    ncaq = next((p for p in scored_perturbations(inputs) if p.retrains), None)
    cells = same_configs(train, eval_items, names)
    report = ProbeReport(
        inputs, probe_name or backend.name, seed, names[0], names[1], len(train), len(eval_items), configs=cells
    )
    rows: dict[tuple[str, str], ProbeRow] = {}
    fits = [(config, OPTIONS_ONLY) for config in cells if ncaq] + [(config, inputs) for config in reversed(cells)]
    label = f"probe {report.probe}"
    total = sum(2 if seen != inputs else 2 + len(options) + len(versions) for _, seen in fits)
    with steps(label, total=total, enabled=progress) as bar:
        for config, seen in fits:
            bar.describe(f"{label}: {config} fit on {seen}")
            backend.fit(view(train, config), seen, seed)
            bar.advance()
            if ncaq is not None and seen != inputs:
                bar.describe(f"{label}: {ncaq.name} {config} score")
                rows[ncaq.name, config] = score_cell(
                    backend, view(eval_items, config), config, seed, ncaq.name, inputs=seen
                )
                bar.advance()
                continue
            for cell in [None, *options]:
                bar.describe(f"{label}: {cell.name if cell else ORIGINAL} {config} score")
                row = evaluate(backend, eval_items, cell, config, seed, inputs=seen)
                rows[row.perturbation, config] = row
                bar.advance()
            for version in versions:
                bar.describe(f"{label}: {version.name} {config} score")
                rows[version.name, config] = compared(backend, version, config, seed, seen)
                bar.advance()
    order = [ORIGINAL, *(p.name for p in scored_perturbations(inputs))]
    report.results = [rows[name, config] for config in cells for name in order]
    report.results += [rows[version.name, config] for version in versions for config in cells]
    return report


def same_configs(
    train: Sequence[MCQAItem], eval_items: Sequence[MCQAItem], names: tuple[str, str] = ("train", "eval")
) -> tuple[str, ...]:
    """The configurations of both files; a ValueError naming them when their option counts differ."""
    k_train, k_eval = option_count(train), option_count(eval_items)
    if k_train != k_eval:
        raise ValueError(f"{names[0]} has {k_train} options per question, {names[1]} {k_eval}: a probe needs one count")
    return configs(eval_items)


def debiased_rows(
    backend: ProbeBackend,
    train: Sequence[MCQAItem],
    eval_items: Sequence[MCQAItem],
    inputs: str,
    seed: int = 0,
    variants: Sequence[str] = DEBIASED,
    progress: bool = True,
) -> list[ProbeRow]:
    """For each DeSIQ split: retrain ``backend`` from scratch on the rebuild of ``train`` (AK, and A2 pairs)
    and score the rebuild of ``eval_items``.

    Every distractor there is another question's correct answer, so a probe that sees the options only
    should fall to chance; one that sees the question may still match question and answer (the
    verdict of each row says which happened).
    """
    inputs = InputSetting.parse(inputs).name
    out = []
    cells = same_configs(train, eval_items)
    label = f"probe {backend.name}: DeSIQ"
    with steps(label, total=2 * len(variants) * len(cells), enabled=progress) as bar:
        for variant in variants:
            split = SPLITS[variant]
            rebuilt_train = build_split(train, variant, seed).items
            rebuilt_eval = build_split(eval_items, variant, seed + 1).items
            for config in cells:
                bar.describe(f"{label} {split.name} {config} fit on {inputs}")
                backend.fit(view(rebuilt_train, config), inputs, seed)
                bar.advance(description=f"{label} {split.name} {config} score")
                out.append(
                    evaluate(backend, rebuilt_eval, None, config, seed, data=split.marker or variant, inputs=inputs)
                )
                bar.advance()
    return out
