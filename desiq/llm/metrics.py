"""metrics.json of a ``desiq eval`` run, computed from its prediction rows alone.

Per condition and configuration (A4, A2), what the metric groups of kind ``mcqa`` make of its questions
(``mmsoc.metrics.catalog``, plugin groups too): accuracy, chance, n (questions, or pairs for A2), a 95%
interval from a bootstrap that resamples videos (``mmsoc.metrics.bootstrap``) and, for written
answers, the success rate (replies in the requested format, by the strict rule); ``videos``, the number of
videos (with fewer than ``min_videos``, default 10, no interval: ``ci95`` null, and no verdict). ``accuracy`` is
lm-evaluation-harness's ``acc`` for ``--answer loglik`` (``accuracy_norm``: ``acc_norm``, beside it)
and the chosen parse rule's for ``--answer generate``. A circular question counts once, correct
only when correct under every rotation; it gets no verdict against chance (a circular question's chance is
(1/k)^k, which any model beats), but its position consistency: the single-pass accuracy (rotation 0), the
circular accuracy, and whether the chosen position follows the rotation (``position_consistency``). Every
other result carries its ``finding`` (and ``finding_norm``), judged as one family over the run's results
(``mmsoc.metrics.verdict.judge``: Holm-adjusted, ``ci_adjusted`` beside the raw ``ci95``). ``position`` counts
the chosen and the gold positions of the original A4 questions (``position_by_condition``: each
condition's A4 rows, all rotations for circular). Unlabelled questions are never scored: their
metrics say so and carry no accuracy.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from desiq.llm.answers import row_correct
from desiq.llm.conditions import CIRCULAR, ORIGINAL
from desiq.records import PAIRS
from mmsoc.metrics.bootstrap import cluster_interval
from mmsoc.metrics.inputs import MCQA, MCQAInput
from mmsoc.metrics.registry import groups_for
from mmsoc.metrics.verdict import MIN_CLUSTERS, MIN_EFFECT, NO_VERDICT, Estimate, enough, judge, read_finding, too_few

N_BOOT = 1000
ALPHA = 0.05
"""The level of the position-consistency test."""


def _questions(rows: Sequence[dict], condition: str, config: str) -> list[tuple[str, list[dict]]]:
    """(video, rows) per question: one row each, or every rotation of a circular question."""
    grouped: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        if row["condition"] == condition and row["config"] == config:
            grouped[row["id"]].append(row)
    if condition != CIRCULAR:
        return [(group[0]["vid_name"], group) for group in grouped.values()]
    complete = [g for g in grouped.values() if len(g) == len(g[0]["options"])]
    return [(group[0]["vid_name"], group) for group in complete]


def mcqa_input(questions: list[tuple[str, list[dict]]], condition: str, answer: str, parse: str) -> MCQAInput:
    """What the metric groups of kind ``mcqa`` score: the questions of one condition and configuration."""
    groups = [group for _, group in questions]
    k = len(groups[0][0]["options"])
    return MCQAInput(
        correct=np.array([all(row_correct(r, answer, parse) for r in group) for group in groups], dtype=bool),
        correct_norm=(
            np.array([all(r["chosen_norm"] == r["gold"] for r in group) for group in groups], dtype=bool)
            if answer == "loglik"
            else None
        ),
        chance=(1 / k) ** k if condition == CIRCULAR else 1 / k,
        videos=tuple(video for video, _ in questions),
        chosen=tuple(tuple(r["chosen"] for r in group) for group in groups),
        gold=tuple(tuple(r["gold"] for r in group) for group in groups),
        in_format=None if answer == "loglik" else tuple(r["strict"] is not None for group in groups for r in group),
    )


def scores(data: MCQAInput, seed: int, min_videos: int) -> dict[str, object]:
    """What the metric groups of kind ``mcqa`` make of ``data``, group by group in their order: the values of
    its metrics (its per-question statistics, or its figures), its other figures (the counts it was computed
    over), then the interval over videos of each metric that declares one (None with fewer than
    ``min_videos`` videos: one video cannot give an interval)."""
    drawn = enough(len(set(data.videos)), min_videos)
    out: dict[str, object] = {}
    for group in groups_for(MCQA):
        stats, figures = group.compute(data)
        made = [metric for metric in group.metrics if metric.key in stats or metric.key in figures]
        out.update({m.key: stats[m.key].value() if m.key in stats else figures[m.key] for m in made})
        out.update({key: value for key, value in figures.items() if key not in out})
        for metric in (m for m in made if m.interval and m.key in stats):
            out[metric.interval] = (
                list(cluster_interval(stats[metric.key], data.videos, N_BOOT, seed)) if drawn else None
            )
    return out


def condition_result(
    rows: Sequence[dict],
    condition: str,
    config: str,
    answer: str,
    parse: str,
    seed: int,
    min_videos: int = MIN_CLUSTERS,
) -> dict[str, Any] | None:
    questions = _questions(rows, condition, config)
    if not questions:
        return None
    data = mcqa_input(questions, condition, answer, parse)
    out = {"condition": condition, "config": config, **scores(data, seed, min_videos)}
    if condition == CIRCULAR:
        out["position_consistency"] = position_consistency(questions, answer, parse)
    return out


def position_consistency(questions: list[tuple[str, list[dict]]], answer: str, parse: str) -> dict[str, Any]:
    """A circular condition read for position rather than against chance: the accuracy of one pass (rotation
    0), the circular accuracy (every rotation right), the shares of questions whose pick stays in one slot
    and on one option under every rotation, and a chi-square test (scipy) of whether the pick's move from its
    rotation-0 slot depends on the rotation: a model that reads the options moves its pick with them, one
    that answers by position (or at random) does not."""
    from scipy.stats import chi2_contingency

    groups = [sorted(group, key=lambda r: r["rotation"]) for _, group in questions]
    k = len(groups[0][0]["options"])
    moves = np.zeros((k, k))
    slots, options = [], []
    for group in groups:
        picked = [(r["rotation"], r["chosen"]) for r in group if r["chosen"] is not None]
        slots.append(len({slot for _, slot in picked}) == 1 and len(picked) == len(group))
        options.append(len({(slot + rotation) % k for rotation, slot in picked}) == 1 and len(picked) == len(group))
        if group[0]["chosen"] is not None:
            for rotation, slot in picked[1:]:
                moves[rotation, (slot - group[0]["chosen"]) % k] += 1
    moves = moves[moves.sum(1) > 0][:, moves.sum(0) > 0]
    test = chi2_contingency(moves) if min(moves.shape) > 1 else None
    p = None if test is None else float(test.pvalue)
    return {
        "single_pass": float(np.mean([row_correct(g[0], answer, parse) for g in groups])),
        "circular": float(np.mean([all(row_correct(r, answer, parse) for r in g) for g in groups])),
        "same_slot": float(np.mean(slots)),
        "same_option": float(np.mean(options)),
        "chi2": None if test is None else float(test.statistic),
        "p": p,
        "follows_rotation": None if p is None else p < ALPHA,
    }


def judge_results(
    rows: Sequence[dict],
    results: list[dict[str, Any]],
    answer: str,
    parse: str,
    seed: int,
    min_videos: int = MIN_CLUSTERS,
    min_effect: float = MIN_EFFECT,
) -> None:
    """Add ``finding``, ``ci_adjusted`` and ``p_adjusted`` (and their ``_norm`` twins for ``accuracy_norm``) to
    every result but the circular ones: one family of every verdict against chance the run's tables print."""
    tests: list[tuple[dict[str, Any], str, Estimate]] = []
    for entry in results:
        if entry["condition"] == CIRCULAR:
            entry["finding"] = NO_VERDICT
            continue
        data = mcqa_input(_questions(rows, entry["condition"], entry["config"]), entry["condition"], answer, parse)
        for suffix, correct in (("", data.correct), ("_norm", data.correct_norm)):
            if correct is not None:
                tests.append((entry, suffix, Estimate(correct.astype(float), data.videos, data.chance)))
    judged = judge([t for _, _, t in tests], min_videos, min_effect, N_BOOT, seed)
    for (entry, suffix, _), mark in zip(tests, judged):
        entry["finding" + suffix] = mark.finding
        entry["ci_adjusted" + suffix] = list(mark.ci_adjusted) if mark.ci_adjusted else None
        entry["p_adjusted" + suffix] = mark.p_adjusted


def positions(rows: Sequence[dict], labelled: bool) -> dict[str, list[int] | None]:
    """Chosen and gold positions over A4 rows (chosen only where an option was read)."""
    width = max((len(r["options"]) for r in rows), default=4)
    chosen, gold = [0] * width, [0] * width
    for row in rows:
        if row["chosen"] is not None:
            chosen[row["chosen"]] += 1
        if labelled:
            gold[row["gold"]] += 1
    return {"chosen": chosen, "gold": gold if labelled else None}


def run_metrics(
    rows: Sequence[dict],
    conditions: Sequence[str],
    answer: str,
    parse: str,
    seed: int,
    header: dict[str, Any],
    min_videos: int = MIN_CLUSTERS,
) -> dict[str, Any]:
    """metrics.json: ``header`` (model, inputs, answer, ...) then results, position and missing media;
    intervals only for results over at least ``min_videos`` videos."""
    labelled = all(row["gold"] is not None for row in rows)
    results = (
        [
            entry
            for condition in conditions
            for config in sorted({row["config"] for row in rows}, key=lambda config: config == PAIRS)
            if (entry := condition_result(rows, condition, config, answer, parse, seed, min_videos)) is not None
        ]
        if labelled
        else []
    )
    judge_results(rows, results, answer, parse, seed, min_videos)
    everything = next((r["config"] for r in rows if r["config"] != PAIRS), PAIRS)  # A4 for Social-IQ: AK
    a4 = [r for r in rows if r["config"] == everything]
    by_condition = {c: positions([r for r in a4 if r["condition"] == c], labelled) for c in conditions}
    first = ORIGINAL if ORIGINAL in conditions else conditions[0]
    missing: dict[str, int] = defaultdict(int)
    for row in rows:
        for modality in row["missing"]:
            missing[modality] += 1
    out = {
        **header,
        "answer": answer,
        "parse": parse if answer == "generate" else None,
        "labelled": labelled,
        "min_videos": min_videos,
        "results": results,
        "position": by_condition.get(first, positions([], labelled)),
        "position_condition": first,
        "position_by_condition": by_condition,
        "missing": dict(sorted(missing.items())),
        "rows": len(rows),
    }
    if not labelled:
        out["note"] = "unlabelled questions (no answer key): predictions and submission.jsonl only, no accuracy"
    return out


def verdict(entry: dict[str, Any], key: str = "ci95", min_videos: int = MIN_CLUSTERS) -> str:
    """Where an accuracy lies against chance (never from the condition's name), given at least ``min_videos``
    videos: the run's family-wise ``finding`` where metrics.json holds one, else read from the interval alone.
    A circular result gets no verdict against chance: its position consistency says more."""
    if entry.get("condition") == CIRCULAR:
        return "no chance verdict (circular: see its position consistency)"
    videos = entry.get("videos")
    if videos is None:
        return f"{NO_VERDICT} (number of videos not recorded)"
    if videos < min_videos:
        return too_few(videos, "videos", min_videos)
    suffix = "" if key == "ci95" else "_norm"
    if "finding" + suffix in entry:
        return str(entry["finding" + suffix])
    interval = entry.get(key) or (None, None)
    value = entry.get("accuracy" + suffix)
    return read_finding(value, interval[0], interval[1], entry["chance"], videos, min_videos)


def context_totals(rows: Sequence[dict]) -> dict[str, int | None]:
    """How the run fitted its questions to the model's context (rows the model counted)."""
    counted = [row for row in rows if row.get("prompt_tokens") is not None]
    return {
        "rows_counted": len(counted),
        "max_prompt_tokens": max((row["prompt_tokens"] for row in counted), default=None),
        "rows_with_frames_dropped": sum(1 for row in counted if row.get("frames_dropped")),
        "frames_dropped": sum(row.get("frames_dropped", 0) for row in counted),
        "rows_with_transcript_cut": sum(1 for row in counted if row.get("transcript_tokens_dropped")),
        "transcript_tokens_dropped": sum(row.get("transcript_tokens_dropped", 0) for row in counted),
    }
