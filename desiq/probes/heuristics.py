"""``heuristics``: answer-only shortcuts that need no training, scored like the trained probes.

- ``longest``: the option with the most characters.
- ``question_overlap``: the option sharing the most words with the question.
- ``rewrite_nearest`` (Social-IQ 2.0): the option nearest to the option that ``idx_types`` names
  ``rewrite``, by word Jaccard. The rewrite is a reworded (wrong) version of the correct answer, so its
  nearest neighbour is often the correct one. Only items whose ``idx_types`` name a rewrite are scored,
  and only with all options (A4; an A2 pair holds the rewrite only when it is the pair's incorrect
  option, and then the rule has a single candidate).

Words are the lower-cased runs of letters, digits and apostrophes. AK (all K options, A4 for Social-IQ)
takes the top option (``np.argmax``: the first wins a tie), A2 only a strictly higher correct option, as
every probe (``desiq.probe_table``); intervals resample whole videos. Rows are given for the eval items as
they are, under each option perturbation, and on each DeSIQ rebuild.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from desiq.perturbation_schemes import perturb
from desiq.perturbations import PERTURBATIONS, SPLITS
from desiq.probe_table import CONFIGS, DEBIASED, ORIGINAL, Version, correct, finding, row_json, shares, verdict, view
from desiq.probe_verdicts import Judgement, Outcomes, versus
from desiq.probes import ProbeEntry
from desiq.records import PAIRS, MCQAItem, configs
from desiq.splits import build_split
from mmsoc.core.io import write_json, write_text
from mmsoc.core.markdown import md_text
from mmsoc.metrics.bootstrap import cluster_bootstrap_ci
from mmsoc.metrics.verdict import MIN_CLUSTERS, MIN_EFFECT, enough

WORD = re.compile(r"[\w']+")
REWRITE = "rewrite"


def words(text: str) -> set[str]:
    return set(WORD.findall(text.lower()))


def longest(item: MCQAItem) -> np.ndarray:
    return np.array([len(option) for option in item.options], dtype=float)


def question_overlap(item: MCQAItem) -> np.ndarray | None:
    question = words(item.question)
    if not question:
        return None
    return np.array([len(question & words(option)) for option in item.options], dtype=float)


def rewrite_nearest(item: MCQAItem) -> np.ndarray | None:
    if REWRITE not in item.option_markers:
        return None
    r = item.option_markers.index(REWRITE)
    rewrite = words(item.options[r])
    scores = [len(rewrite & words(o)) / max(1, len(rewrite | words(o))) for o in item.options]
    scores[r] = -np.inf  # the rewrite itself is never the pick
    return np.array(scores)


@dataclass(frozen=True)
class Heuristic:
    name: str
    score: Callable[[MCQAItem], np.ndarray | None]
    """One score per option, or None where the rule does not apply to the item."""
    pairs: bool = True
    """Whether it is scored on A2 pairs too (else with all options only)."""


HEURISTICS = (
    Heuristic("longest", longest),
    Heuristic("question_overlap", question_overlap),
    Heuristic("rewrite_nearest", rewrite_nearest, pairs=False),
)


@dataclass(frozen=True)
class HeuristicRow:
    heuristic: str
    perturbation: str
    config: str
    accuracy: float
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

    def to_json(self) -> dict[str, object]:
        head = {"probe": self.probe, "eval": self.eval, "n_eval": self.n_eval, "seed": self.seed}
        head["configs"] = list(self.configs)
        return {**head, "results": [row_json(r) for r in self.results]}

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


def score_rows(
    items: Sequence[MCQAItem], config: str, seed: int, perturbation: str = ORIGINAL, data: str = ORIGINAL
) -> list[HeuristicRow]:
    """One row per heuristic that applies to some of ``items`` (already viewed in ``config``)."""
    rows = []
    for heuristic in HEURISTICS:
        if config == PAIRS and not heuristic.pairs:
            continue
        scored = [(item, s) for item in items if (s := heuristic.score(item)) is not None]
        if not scored:
            continue
        kept, scores = [x for x, _ in scored], [s for _, s in scored]
        hits = correct(scores, kept, config)
        rows.append(
            HeuristicRow(
                heuristic.name,
                perturbation,
                config,
                float(hits.mean()),
                float(np.mean([1 / len(x.options) for x in kept])),
                len(kept),
                cluster_bootstrap_ci(hits, [x.video for x in kept], seed=seed),
                data,
                len({x.video for x in kept}),
                outcomes=Outcomes.of(kept, shares(scores, kept)),
            )
        )
    return rows


def run_heuristics(
    items: Sequence[MCQAItem],
    seed: int = 0,
    name: str = "eval",
    perturbations: bool = True,
    variants: Sequence[str] = DEBIASED,
    versions: Sequence[Version] = (),
) -> HeuristicReport:
    """Every heuristic on the items as they are, under each option perturbation (unless ``perturbations`` is
    False), on each DeSIQ rebuild of ``variants`` (built as ``desiq probe`` builds the eval rebuild: seed + 1),
    and on each other ``versions`` of the file (``desiq probe --compare``)."""
    labelled = [item for item in items if item.labelled]
    if not labelled:
        raise ValueError(f"{name}: heuristics need labelled questions (answer_idx); none has one")
    report = HeuristicReport(name, len(labelled), seed, configs=configs(labelled))
    options = [p for p in PERTURBATIONS.values() if not p.retrains] if perturbations else []
    for config in report.configs:
        base = view(labelled, config)
        report.results += score_rows(base, config, seed)
        for p in options:
            report.results += score_rows(perturb(base, p, seed=seed).items, config, seed, p.name)
    for variant in variants:
        rebuilt = build_split(labelled, variant, seed + 1).items
        for config in report.configs:
            report.results += score_rows(view(rebuilt, config), config, seed, data=SPLITS[variant].marker or variant)
    for version in versions:
        for config in report.configs:
            rows = score_rows(view(version.items, config), config, seed, data=version.name)
            report.results += [
                replace(r, outcomes=r.outcomes.renamed(version.names) if r.outcomes else None) for r in rows
            ]
    return report


def heuristics_markdown(report: HeuristicReport) -> str:
    lines = [
        "# Answer-only shortcuts (no training)",
        "",
        f"Scored on {report.n_eval} questions ({report.eval}); seed {report.seed}. Accuracy in %, with a 95% "
        "bootstrap interval resampled by video; the verdict comes from the test against chance, judged with every "
        "row's (vs original: the row minus the original row of the same heuristic and config, in points, "
        "with its adjusted interval). "
        "longest: most characters; question_overlap: most words shared with the question; rewrite_nearest: "
        f"nearest to the `rewrite` option by word Jaccard ({report.configs[0]} only, items with a rewrite). "
        f"{report.configs[0]}: top option, first on a tie; A2: the correct option strictly higher.",
        "",
        "| heuristic | data | perturbation | config | accuracy | n | verdict | vs original |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in report.results:
        low, high = r.ci95
        interval = f" [{100 * low:.1f}, {100 * high:.1f}]" if enough(r.videos, r.min_videos) else ""
        accuracy = f"{100 * r.accuracy:.2f}{interval}"
        vs = versus(r.judgement.vs_original if r.judgement else None)
        cells = [r.heuristic, r.data, r.perturbation, r.config, accuracy, str(r.n), r.verdict, vs]
        lines.append("| " + " | ".join(md_text(c) for c in cells) + " |")
    return "\n".join([*lines, ""])


def write_heuristics(report: HeuristicReport, out_dir: str | Path) -> Path:
    out = Path(out_dir)
    write_json(out / "probe.json", report.to_json())
    write_text(out / "probe.md", heuristics_markdown(report))
    return out


PROBE = ProbeEntry(
    "heuristics",
    "answer-only shortcuts without training (longest option, question overlap, "
    "nearest to the rewrite); needs only --eval",
    None,
    trains=False,
)
