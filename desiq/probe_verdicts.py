"""The verdicts of a probe table, judged together (``mmsoc.metrics.verdict``: one rule, family-wise).

Each row of a table is a test against chance; each perturbation, rebuild and compared file is also a
paired test against the ``original`` row of the same probe or shortcut and configuration
(``vs_original``): the difference per question (an A2 question: the mean over its pairs), on the questions
both rows scored, resampling videos jointly (the same resample for both arms). Rows of another version of
the eval file are matched to the original's questions by qid, video and question text (numbered where
those repeat), rebuilds by id. The family is every chance test and every difference the table prints.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol, TypeVar

import numpy as np

from desiq.records import MCQAItem
from mmsoc.metrics.verdict import (
    ABOVE,
    AT_CHANCE,
    BELOW,
    MIN_CLUSTERS,
    MIN_EFFECT,
    NEGLIGIBLE,
    Estimate,
    Judged,
    judge,
    read_finding,
    too_few,
)

ORIGINAL = "original"


@dataclass(frozen=True)
class Outcomes:
    """What one row scored, unit by unit (a question, or an A2 pair): the question each asks (an id of the
    original eval file), its hit (1, 0, or a tie's share) and its video."""

    questions: tuple[str, ...]
    hits: np.ndarray
    videos: tuple[str, ...]

    @staticmethod
    def of(items: Sequence[MCQAItem], hits: np.ndarray) -> Outcomes:
        return Outcomes(
            tuple(item.question_key for item in items),
            np.asarray(hits, dtype=float),
            tuple(item.video for item in items),
        )

    def per_question(self) -> dict[str, tuple[float, str]]:
        """Per question: the mean hit of its units and its video, in the order first scored."""
        units: dict[str, list[float]] = defaultdict(list)
        videos: dict[str, str] = {}
        for question, hit, video in zip(self.questions, self.hits, self.videos):
            units[question].append(float(hit))
            videos[question] = video
        return {q: (float(np.mean(h)), videos[q]) for q, h in units.items()}

    def renamed(self, names: dict[str, str]) -> Outcomes:
        """The same outcomes, their questions named by ``names`` where it has them."""
        return replace(self, questions=tuple(names.get(q, q) for q in self.questions))


@dataclass(frozen=True)
class Comparison:
    """A row against the original row: the paired difference (this − original) on their common questions."""

    difference: float
    ci95: tuple[float, float] | None
    ci_adjusted: tuple[float, float] | None
    finding: str
    questions: int
    """Questions both rows scored."""
    original: float
    """The original row's accuracy on those questions."""
    p: float | None = None
    p_adjusted: float | None = None


@dataclass(frozen=True)
class Judgement:
    """A row's verdict from its table's family (:func:`judge_rows`)."""

    finding: str
    ci95: tuple[float, float] | None
    ci_adjusted: tuple[float, float] | None
    p: float | None
    p_adjusted: float | None
    vs_original: Comparison | None = None


class Row(Protocol):
    """What a probe or shortcut row gives its judgement."""

    @property
    def family(self) -> str: ...
    @property
    def perturbation(self) -> str: ...
    @property
    def config(self) -> str: ...
    @property
    def data(self) -> str: ...
    @property
    def chance(self) -> float: ...
    @property
    def outcomes(self) -> Outcomes | None: ...


R = TypeVar("R", bound=Row)


def is_original(row: Row) -> bool:
    return row.perturbation == ORIGINAL and row.data == ORIGINAL


def match_names(original: Sequence[MCQAItem], other: Sequence[MCQAItem]) -> dict[str, str]:
    """The ids of ``other``'s questions (another version of the file) mapped to ``original``'s: the same qid,
    video and question text, the n-th such question to the n-th."""

    def keyed(items: Sequence[MCQAItem]) -> dict[tuple[str, str, str, int], str]:
        seen: Counter[tuple[str, str, str]] = Counter()
        out = {}
        for item in items:
            key = (item.qid, item.video, item.question)
            out[item.qid, item.video, item.question, seen[key]] = item.id
            seen[key] += 1
        return out

    mine = keyed(original)
    return {their_id: mine[key] for key, their_id in keyed(other).items() if key in mine}


def chance_test(row: Row) -> Estimate:
    outcomes = row.outcomes or Outcomes((), np.zeros(0), ())
    return Estimate(outcomes.hits, outcomes.videos, row.chance)


def difference_test(row: Row, original: Row) -> tuple[Estimate, float]:
    """The paired test of ``row`` against ``original`` on their common questions, and the original's accuracy
    there."""
    mine = row.outcomes.per_question() if row.outcomes else {}
    base = original.outcomes.per_question() if original.outcomes else {}
    common = [q for q in base if q in mine]
    values = np.array([mine[q][0] - base[q][0] for q in common])
    before = float(np.mean([base[q][0] for q in common])) if common else float("nan")
    return Estimate(values, tuple(base[q][1] for q in common), 0.0, difference=True), before


def judge_rows(
    rows: Sequence[R],
    seed: int = 0,
    min_clusters: int = MIN_CLUSTERS,
    min_effect: float = MIN_EFFECT,
    n_boot: int = 1000,
) -> list[R]:
    """The rows with their ``judgement``: one family of every chance test and every difference from the
    original row of the same family (probe or shortcut) and configuration."""
    originals = {(row.family, row.config): row for row in rows if is_original(row)}
    tests = [chance_test(row) for row in rows]
    paired: dict[int, tuple[int, float]] = {}
    for i, row in enumerate(rows):
        base = originals.get((row.family, row.config))
        if base is None or is_original(row):
            continue
        test, before = difference_test(row, base)
        paired[i] = (len(tests), before)
        tests.append(test)
    judged = judge(tests, min_clusters, min_effect, n_boot, seed)
    out = []
    for i, row in enumerate(rows):
        vs = _comparison(judged[paired[i][0]], tests[paired[i][0]], paired[i][1]) if i in paired else None
        mark = judged[i]
        judgement = Judgement(mark.finding, mark.ci95, mark.ci_adjusted, mark.p, mark.p_adjusted, vs)
        out.append(replace(row, judgement=judgement, min_videos=min_clusters, min_effect=min_effect))  # type: ignore[type-var]
    return out


def _comparison(mark: Judged, test: Estimate, before: float) -> Comparison:
    return Comparison(
        mark.estimate, mark.ci95, mark.ci_adjusted, mark.finding, len(test.values), before, mark.p, mark.p_adjusted
    )


def comparison_json(vs: Comparison | None) -> dict[str, object] | None:
    if vs is None:
        return None
    return {
        "difference": vs.difference if vs.questions else None,
        "ci95": list(vs.ci95) if vs.ci95 else None,
        "ci_adjusted": list(vs.ci_adjusted) if vs.ci_adjusted else None,
        "finding": vs.finding,
        "questions": vs.questions,
        "original": vs.original if vs.questions else None,
        "p": vs.p,
        "p_adjusted": vs.p_adjusted,
    }


def versus(vs: Comparison | None) -> str:
    """A row against the original in points, e.g. "+6.43 [2.1, 10.8] higher" (the adjusted interval)."""
    if vs is None:
        return "–"
    if not vs.questions:
        return "no common questions"
    interval = f" [{100 * vs.ci_adjusted[0]:+.1f}, {100 * vs.ci_adjusted[1]:+.1f}]" if vs.ci_adjusted else ""
    return f"{100 * vs.difference:+.2f}{interval} {vs.finding}"


def verdict_words(
    accuracy: float,
    chance: float,
    interval: Sequence[float] | None,
    finding: str,
    videos: int | None,
    min_videos: int = MIN_CLUSTERS,
    min_effect: float = MIN_EFFECT,
) -> str:
    """The row's human words for its finding, e.g. "above chance: [51.2, 58.0] excludes 25%"; with fewer than
    ``min_videos`` videos, e.g. "too few videos to tell (3 videos), at least 10 needed"."""
    if videos is None:
        return "no verdict (number of videos not recorded)"
    if videos < min_videos:
        return too_few(videos, "videos", min_videos)
    if interval is None:
        return "no verdict (no interval)"
    low, high = interval
    shown = f"[{100 * low:.1f}, {100 * high:.1f}]"
    if finding in (ABOVE, BELOW):
        return f"{finding}: {shown} excludes {100 * chance:.3g}%"
    if finding == AT_CHANCE:
        return f"{finding}: {shown} includes {100 * chance:.3g}%"
    if finding == NEGLIGIBLE:
        return (
            f"{finding}: {shown} excludes {100 * chance:.3g}%, but {100 * accuracy:.1f}% is within "
            f"{min_effect:g} points of it"
        )
    return finding


def unjudged_finding(
    accuracy: float, chance: float, ci95: Sequence[float], videos: int | None, min_videos: int, min_effect: float
) -> str:
    """The finding of a row judged alone (a family of one: its own 95% interval)."""
    return read_finding(accuracy, ci95[0], ci95[1], chance, videos, min_videos, min_effect)
