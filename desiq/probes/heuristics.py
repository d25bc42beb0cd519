"""``heuristics``: the shortcut battery (``desiq.probes.shortcuts``), scored like the trained probes.

A tie among t options counts 1/t of a hit (the expected score of a uniform tie-break, ``desiq.probes.ties``)
in AK and in A2 alike; each row counts its tied questions. A rule runs only under inputs that show what it
reads (``question_overlap`` needs ``q``); a rule learnt from training questions (``position_prior``) is
fitted on the training file, or cross-fitted by group with the eval file alone. Intervals resample whole
videos. Rows are given for the eval items as they are, under each option perturbation, and on each DeSIQ
rebuild.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from desiq.perturbation_schemes import perturb
from desiq.perturbations import PERTURBATIONS, SPLITS
from desiq.probe_hits import shared_hits
from desiq.probe_table import CONFIGS, DEBIASED, ORIGINAL, Version, accuracy_text, finding, row_json, verdict, view
from desiq.probe_verdicts import Judgement, Outcomes, versus
from desiq.probes import ProbeEntry
from desiq.probes.shortcuts import SHORTCUTS, Shortcut, applicable, cross_fitted
from desiq.probes.ties import tied
from desiq.records import MCQAItem, configs
from desiq.splits import build_split
from mmsoc.core.io import write_json, write_text
from mmsoc.core.markdown import md_text
from mmsoc.metrics.bootstrap import cluster_bootstrap_ci
from mmsoc.metrics.verdict import MIN_CLUSTERS, MIN_EFFECT

TEXT_INPUTS = "q+a"
"""What the battery reads at most: the question and the options."""


@dataclass(frozen=True)
class HeuristicRow:
    heuristic: str
    perturbation: str
    config: str
    accuracy: float
    """Ties counted as a share: a tie among t options is 1/t of a hit."""
    chance: float
    n: int
    ci95: tuple[float, float]
    data: str = ORIGINAL
    videos: int | None = None
    """The videos the scored items come from."""
    min_videos: int = MIN_CLUSTERS
    """The fewest videos a verdict is drawn from."""
    min_effect: float = MIN_EFFECT
    """The smallest effect (points) a finding calls more than negligible."""
    outcomes: Outcomes | None = field(default=None, repr=False, compare=False)
    judgement: Judgement | None = None
    ties: int = 0
    """The scored questions whose top score is shared by two options or more."""

    @property
    def family(self) -> str:
        return self.heuristic

    @property
    def finding(self) -> str:
        return finding(self)

    @property
    def verdict(self) -> str:
        return verdict(self)


@dataclass
class HeuristicReport:
    eval: str
    n_eval: int
    seed: int
    probe: str = "heuristics"
    results: list[HeuristicRow] = field(default_factory=list)
    configs: tuple[str, ...] = CONFIGS
    """All options (``AK``) first, then ``A2``."""
    inputs: str = TEXT_INPUTS
    """What the rules may read; a rule that reads more is not run."""
    train: str | None = None
    """The training file a learnt rule is fitted on; None: cross-fitted on the eval file by group."""

    def to_json(self) -> dict[str, object]:
        head = {"probe": self.probe, "eval": self.eval, "n_eval": self.n_eval, "seed": self.seed}
        head |= {"inputs": self.inputs, "train": self.train, "configs": list(self.configs)}
        return {**head, "not_run": not_run(self.inputs), "results": [row_json(r) for r in self.results]}

    def get(
        self, heuristic: str, perturbation: str = ORIGINAL, config: str | None = None, data: str = ORIGINAL
    ) -> HeuristicRow:
        """The row of one cell; ``config`` None: all options (``AK``)."""
        config = config or self.configs[0]
        return next(
            r
            for r in self.results
            if (r.heuristic, r.perturbation, r.config, r.data) == (heuristic, perturbation, config, data)
        )


def not_run(inputs: str) -> dict[str, str]:
    """The rules that read more than ``inputs`` show, each with the reason it is not run."""
    return {
        s.name: f"reads {s.reads}; inputs {inputs} do not show the question"
        for s in SHORTCUTS
        if not s.readable(inputs)
    }


def rule_scores(
    shortcut: Shortcut, items: Sequence[MCQAItem], train: Sequence[MCQAItem] | None
) -> list[np.ndarray | None]:
    """The rule's scores of ``items``: learnt on ``train``, or cross-fitted on ``items`` by group (None)."""
    if shortcut.learns and train is None:
        return cross_fitted(shortcut, items)
    rule = shortcut.fit(train or [])
    return [rule(item) for item in items]


def score_rows(
    items: Sequence[MCQAItem],
    config: str,
    seed: int,
    perturbation: str = ORIGINAL,
    data: str = ORIGINAL,
    train: Sequence[MCQAItem] | None = None,
    inputs: str = TEXT_INPUTS,
) -> list[HeuristicRow]:
    """One row per rule readable under ``inputs`` that applies to some of ``items`` (already viewed in
    ``config``; ``train`` likewise, or None)."""
    rows = []
    for shortcut in applicable(inputs, config):
        scored = [(x, s) for x, s in zip(items, rule_scores(shortcut, items, train)) if s is not None]
        if not scored:
            continue
        kept, scores = [x for x, _ in scored], [s for _, s in scored]
        hits = shared_hits(scores, kept)
        rows.append(
            HeuristicRow(
                shortcut.name,
                perturbation,
                config,
                float(hits.mean()),
                float(np.mean([1 / len(x.options) for x in kept])),
                len(kept),
                cluster_bootstrap_ci(hits, [x.video for x in kept], seed=seed),
                data,
                len({x.video for x in kept}),
                outcomes=Outcomes.of(kept, hits),
                ties=sum(tied(s.tolist()) for s in scores),
            )
        )
    return rows


def run_heuristics(
    items: Sequence[MCQAItem],
    seed: int = 0,
    name: str = "eval",
    perturbations: bool = True,
    variants: Sequence[str] = DEBIASED,
    train: Sequence[MCQAItem] | None = None,
    inputs: str = TEXT_INPUTS,
    train_name: str | None = None,
    versions: Sequence[Version] = (),
) -> HeuristicReport:
    """Every rule readable under ``inputs`` on the items as they are, under each option perturbation (unless
    ``perturbations`` is False), on each DeSIQ rebuild of ``variants`` (built as ``desiq probe`` builds
    them: the eval rebuild with seed + 1, the training rebuild with seed), and on each other ``versions`` of
    the file (``desiq probe --compare``). A learnt rule is fitted on ``train`` (its rebuild for the rebuilt
    rows), or cross-fitted by group when ``train`` is None."""
    labelled = [item for item in items if item.labelled]
    if not labelled:
        raise ValueError(f"{name}: heuristics need labelled questions (answer_idx); none has one")
    report = HeuristicReport(name, len(labelled), seed, configs=configs(labelled), inputs=inputs, train=train_name)
    options = [p for p in PERTURBATIONS.values() if not p.retrains] if perturbations else []
    for config in report.configs:
        base, fit_on = view(labelled, config), None if train is None else view(train, config)
        report.results += score_rows(base, config, seed, train=fit_on, inputs=inputs)
        for p in options:
            perturbed = perturb(base, p, seed=seed).items
            report.results += score_rows(perturbed, config, seed, p.name, train=fit_on, inputs=inputs)
    for variant in variants:
        rebuilt = build_split(labelled, variant, seed + 1).items
        rebuilt_train = None if train is None else build_split(train, variant, seed).items
        data = SPLITS[variant].marker or variant
        for config in report.configs:
            fit_on = None if rebuilt_train is None else view(rebuilt_train, config)
            report.results += score_rows(view(rebuilt, config), config, seed, data=data, train=fit_on, inputs=inputs)
    for version in versions:
        for config in report.configs:
            fit_on = None if train is None else view(train, config)
            rows = score_rows(view(version.items, config), config, seed, data=version.name, train=fit_on, inputs=inputs)
            report.results += [
                replace(r, outcomes=r.outcomes.renamed(version.names) if r.outcomes else None) for r in rows
            ]
    return report


def battery_lines(report: HeuristicReport) -> list[str]:
    """The shortcut battery as Markdown: what each rule does, then one line per rule and setting, A2 beside
    all options."""
    everything, pairs = report.configs[0], report.configs[-1]
    fitted = f"fitted on {report.train}" if report.train else "cross-fitted on the eval file by video"
    lines = [
        "Each rule picks its top-scoring option; a tie among t options counts 1/t of a hit (the expected score "
        f'of a uniform tie-break), in {" and ".join(dict.fromkeys(report.configs))} alike; "ties" counts the '
        f"questions with a tie where they exceed 1% of them. Rules read inputs {md_text(report.inputs)}: "
        + "; ".join(f"{s.name}: {md_text(s.summary)}" for s in SHORTCUTS if s.readable(report.inputs))
        + f". position_prior is {md_text(fitted)}; "
        + ", ".join(s.name for s in SHORTCUTS if not s.pairs)
        + f" are scored on all options only ({everything}).",
    ]
    lines += [f"Not run: {name} ({md_text(why)})." for name, why in not_run(report.inputs).items()]
    lines += [
        "",
        f"| shortcut | data | setting | {pairs} | {everything} | verdict {pairs} | verdict {everything} "
        f"| vs original {pairs} | vs original {everything} |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    cells: dict[tuple[str, str, str], dict[str, HeuristicRow]] = {}
    for r in report.results:
        cells.setdefault((r.heuristic, r.data, r.perturbation), {})[r.config] = r
    for (rule, data, perturbation), row in cells.items():
        shown = [accuracy_text(row[c]) if c in row else "–" for c in (pairs, everything)]
        verdicts = [row[c].verdict if c in row else "–" for c in (pairs, everything)]
        vs = [_versus(row[c]) if c in row else "–" for c in (pairs, everything)]
        lines.append("| " + " | ".join(md_text(c) for c in [rule, data, perturbation, *shown, *verdicts, *vs]) + " |")
    return lines


def _versus(row: HeuristicRow) -> str:
    """The row minus the original row of the same rule and config (``desiq.probe_verdicts.versus``)."""
    return versus(row.judgement.vs_original if row.judgement else None)


def heuristics_markdown(report: HeuristicReport) -> str:
    lines = [
        "# Answer-only shortcuts (no training)",
        "",
        f"Scored on {report.n_eval} questions ({md_text(report.eval)}); seed {report.seed}. Accuracy in %, with a "
        "95% bootstrap interval resampled by video; the verdict comes from the test against chance, judged with "
        "every row's (vs original: the row minus the original row of the same rule and config, in points, with "
        "its adjusted interval).",
        "",
        *battery_lines(report),
    ]
    return "\n".join([*lines, ""])


def write_heuristics(report: HeuristicReport, out_dir: str | Path) -> Path:
    out = Path(out_dir)
    write_json(out / "probe.json", report.to_json())
    write_text(out / "probe.md", heuristics_markdown(report))
    return out


PROBE = ProbeEntry(
    "heuristics",
    "the shortcut battery: answer-only rules without training (each listed as heuristics:RULE); needs only --eval",
    None,
    trains=False,
)
