"""Per-item blind flags: which questions a probe that never sees the video, or a shortcut, answers.

Each question is scored by a probe that never trained on its group (its video): the evaluated questions
are cut into folds by video (``sklearn.model_selection.GroupKFold``) and each fold is scored by a probe
fitted from scratch on the other folds plus the training questions of other videos (cross-fitting).
The blind probes see the options only (``a``) and the question with the options (``q+a``); the
shortcuts are those of ``desiq.probes.shortcuts`` that need no training. A probe's pick is its
top-scoring option (``np.argmax``: the first wins a tie), as in the probe table.

``RUN_DIR/per_item.jsonl`` has one line per question::

    {"id": ..., "qid": ..., "video": ..., "answer_idx": 2, "options": 4,
     "predictions": {"tfidf-linear:a": 1, "tfidf-linear:q+a": 2},
     "heuristics": {"longest": false, "question_overlap": true, "rewrite_nearest": null},
     "solved_by": ["tfidf-linear:q+a", "question_overlap"], "blind_solvable": true}

``null`` marks a shortcut that does not apply to the question. ``desiq subset --blind-proof`` holds the
probes' picks at chance on the subset it keeps (``desiq.subset``; with ``--method unsolved`` it keeps the
questions no line calls ``blind_solvable``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypedDict

import numpy as np

from desiq.probes import ProbeBackend
from desiq.probes.shortcuts import SHORTCUTS
from desiq.records import MCQAItem
from mmsoc.core.io import write_json, write_jsonl, write_text
from mmsoc.core.progress import steps
from mmsoc.metrics.bootstrap import cluster_bootstrap_ci
from mmsoc.metrics.verdict import ABOVE, interval_verdict

BLIND_INPUTS = ("a", "q+a")
"""What a blind probe may see: the options, or the question and the options (no transcript, no media)."""
FOLDS = 5
STEP = 0.05
"""The share of the questions left that each retraining step flags (``refine``)."""
MAX_STEPS = 60
PER_ITEM = "per_item.jsonl"
UNTRAINED = [s for s in SHORTCUTS if not s.learns]
"""The shortcuts flagged per question: those that need no training."""


class AccuracyCheck(TypedDict):
    """A probe's accuracy on some items against chance (``accuracy_entry``)."""

    inputs: str
    accuracy: float
    chance: float
    n: int
    videos: int
    ci95: list[float]
    verdict: str


class Retrained(TypedDict, total=False):
    """What the retrained probes found (``refine``): the filtering steps taken and the last check per input
    setting; empty where no probe was retrained."""

    steps: int
    checks: dict[str, AccuracyCheck]


def fold_indices(items: Sequence[MCQAItem], folds: int = FOLDS) -> list[np.ndarray]:
    """The held-out positions of each fold: whole videos, ``min(folds, videos)`` folds."""
    from sklearn.model_selection import GroupKFold

    groups = [item.video for item in items]
    n_groups = len(set(groups))
    if n_groups < 2:
        raise ValueError(f"cross-fitting by video needs questions from two videos at least, not {n_groups}")
    splitter = GroupKFold(n_splits=min(folds, n_groups))
    return [held for _, held in splitter.split(np.zeros((len(items), 1)), groups=groups)]


def cross_fit(
    backend: ProbeBackend,
    items: Sequence[MCQAItem],
    inputs: str,
    seed: int = 0,
    folds: int = FOLDS,
    extra_train: Sequence[MCQAItem] = (),
    progress: str | None = None,
) -> list[np.ndarray]:
    """Option scores of every item from a probe fitted without its video: on the other folds of ``items``
    and the questions of ``extra_train`` about other videos. ``progress``: the description of a step per
    fold on stderr (None: none shown)."""
    scores: list[np.ndarray] = [np.empty(0)] * len(items)
    held_out = fold_indices(items, folds)
    with steps(progress or "", total=len(held_out), enabled=progress is not None) as bar:
        for fold, held in enumerate(held_out, 1):
            bar.describe(f"{progress}: fold {fold}/{len(held_out)}")
            videos = {items[i].video for i in held}
            held_set = set(held.tolist())
            rest = [x for k, x in enumerate(items) if k not in held_set]
            backend.fit([x for x in extra_train if x.video not in videos] + rest, inputs, seed)
            for i, s in zip(held, backend.score([items[i] for i in held])):
                scores[i] = s
            bar.advance()
    return scores


def hits(scores: Sequence[np.ndarray], items: Sequence[MCQAItem]) -> np.ndarray:
    """Whether each item's top-scoring option (the first on a tie) is its correct one."""
    return np.array([int(np.argmax(s)) == item.answer_idx for s, item in zip(scores, items)], dtype=bool)


def accuracy_entry(correct: np.ndarray, items: Sequence[MCQAItem], inputs: str, seed: int = 0) -> AccuracyCheck:
    """Accuracy, chance, n, videos, a 95% interval that resamples videos, and its verdict against chance."""
    videos = [item.video for item in items]
    chance = float(np.mean([1 / len(item.options) for item in items]))
    ci95 = cluster_bootstrap_ci(correct, videos, seed=seed)
    return {
        "inputs": inputs,
        "accuracy": float(np.mean(correct)),
        "chance": chance,
        "n": len(items),
        "videos": len(set(videos)),
        "ci95": list(ci95),
        "verdict": interval_verdict(*ci95, chance, len(set(videos)), "videos"),
    }


def cross_fitted_accuracy(
    backend: ProbeBackend, items: Sequence[MCQAItem], inputs: str, seed: int = 0, folds: int = FOLDS
) -> AccuracyCheck:
    """A probe retrained and tested on ``items`` alone, cross-fitted by video (``accuracy_entry``)."""
    return accuracy_entry(hits(cross_fit(backend, items, inputs, seed, folds), items), items, inputs, seed)


def heuristic_flags(item: MCQAItem) -> dict[str, bool | None]:
    """Per shortcut, whether its pick is the correct option (None where it does not apply)."""
    flags: dict[str, bool | None] = {}
    for shortcut in UNTRAINED:
        scores = shortcut.fit(())(item)
        flags[shortcut.name] = None if scores is None else bool(int(np.argmax(scores)) == item.answer_idx)
    return flags


def first_rows(items: Sequence[MCQAItem], picks: dict[str, list[int]]) -> list[dict[str, Any]]:
    """One row per item: each blind probe's pick, each shortcut's flag and who answers it."""
    rows = []
    for k, item in enumerate(items):
        predictions = {name: chosen[k] for name, chosen in picks.items()}
        flags = heuristic_flags(item)
        solved = [name for name, pick in predictions.items() if pick == item.answer_idx]
        solved += [name for name, flag in flags.items() if flag]
        rows.append(
            {
                "id": item.id,
                "qid": item.qid,
                "video": item.video,
                "answer_idx": item.answer_idx,
                "options": len(item.options),
                "predictions": predictions,
                "heuristics": flags,
                "retrained_step": None,
                "solved_by": solved,
                "blind_solvable": bool(solved),
            }
        )
    return rows


def refine(
    rows: list[dict[str, Any]],
    items: Sequence[MCQAItem],
    backend: ProbeBackend,
    probe: str,
    seed: int = 0,
    folds: int = FOLDS,
    progress: bool = False,
) -> Retrained:
    """Retrain the blind probes on the questions no one answers, cross-fitted by video; while one of them
    is above chance, flag the ``STEP`` share that those above chance answer most surely (highest softmax of
    the correct option) and retrain (adversarial filtering, as AFLite). Returns the last checks and steps.

    Why: the questions no probe answers are chosen by their answers (the correct option is never a
    probe's pick), so a probe retrained on them alone learns to avoid those picks (on Social-IQ 2.0
    training questions it scores about 1 / (K - 1)); each step removes what it learns until it is at
    chance (or below: no pick left to avoid)."""
    from scipy.special import softmax

    left = [k for k, row in enumerate(rows) if not row["blind_solvable"]]
    checks: dict[str, AccuracyCheck] = {}
    for step in range(1, MAX_STEPS + 1):
        subset = [items[k] for k in left]
        if len({item.video for item in subset}) < 2:
            return {"steps": step - 1, "checks": checks}
        sure: dict[int, tuple[float, str]] = {}
        for inputs in BLIND_INPUTS:
            label = f"per-item {probe}:{inputs} on the {len(subset)} unsolved, step {step}" if progress else None
            scores = cross_fit(backend, subset, inputs, seed, folds, progress=label)
            correct = hits(scores, subset)
            checks[inputs] = accuracy_entry(correct, subset, inputs, seed)
            if checks[inputs]["verdict"] != ABOVE:
                continue
            for k, s, item, right in zip(left, scores, subset, correct):
                p = float(softmax(np.asarray(s, dtype=float))[item.answer_idx])
                if right and p > sure.get(k, (-1.0, ""))[0]:
                    sure[k] = (p, f"{probe}:{inputs} on the unsolved")
        if all(check["verdict"] != ABOVE for check in checks.values()):
            return {"steps": step - 1, "checks": checks}
        flagged = sorted(sure, key=lambda k: (-sure[k][0], k))[: max(1, math.ceil(STEP * len(left)))]
        for k in flagged:
            rows[k].update(retrained_step=step, solved_by=[sure[k][1]], blind_solvable=True)
        left = [k for k in left if k not in set(flagged)]
    return {"steps": MAX_STEPS, "checks": checks}


def per_item_rows(
    items: Sequence[MCQAItem],
    backend: ProbeBackend | None = None,
    probe: str = "",
    train: Sequence[MCQAItem] = (),
    seed: int = 0,
    folds: int = FOLDS,
    progress: bool = False,
) -> tuple[list[dict[str, Any]], Retrained]:
    """The rows of ``per_item.jsonl`` (one per labelled item) and what the retrained probes found on the
    questions left (``refine``; nothing without ``backend``: the shortcuts only); ``progress``: each fold
    of each cross-fitting as a step on stderr."""
    unlabelled = [item.id for item in items if not item.labelled]
    if unlabelled:
        raise ValueError(f"per-item flags need labelled questions; {len(unlabelled)} have none ({unlabelled[0]})")
    if backend is None:
        return first_rows(items, {}), {}
    name = probe or backend.name
    picks = {}
    for inputs in BLIND_INPUTS:
        label = f"per-item {name}:{inputs}" if progress else None
        scores = cross_fit(backend, items, inputs, seed, folds, train, label)
        picks[f"{name}:{inputs}"] = [int(np.argmax(s)) for s in scores]
    rows = first_rows(items, picks)
    return rows, refine(rows, items, backend, name, seed, folds, progress)


def summary(rows: Sequence[dict[str, Any]], retrained: Retrained, folds: int = FOLDS) -> dict[str, Any]:
    """How many questions each solver answers, how many at least one does, and the retrained probes'
    last check on the questions none answers."""
    solvers = dict.fromkeys(name for row in rows for name in row["predictions"])
    solvers.update(dict.fromkeys(s.name for s in UNTRAINED))
    solvers.update(dict.fromkeys(name for row in rows if row["retrained_step"] for name in row["solved_by"]))
    solvable = sum(row["blind_solvable"] for row in rows)
    return {
        "file": PER_ITEM,
        "items": len(rows),
        "folds": folds,
        "group": "video",
        "blind_inputs": list(BLIND_INPUTS),
        "solved_by": {name: sum(name in row["solved_by"] for row in rows) for name in solvers},
        "blind_solvable": solvable,
        "blind_proof": len(rows) - solvable,
        "retrained": retrained,
    }


def _check_line(check: AccuracyCheck) -> str:
    low, high = check["ci95"]
    return (
        f"| {check['inputs']} | {100 * check['accuracy']:.1f} [{100 * low:.1f}, {100 * high:.1f}] | "
        f"{100 * check['chance']:.1f} | {check['n']} | {check['verdict']} |"
    )


def summary_markdown(info: dict[str, Any]) -> str:
    n = info["items"]
    lines = [
        f"## Blind-solvable questions ({info['file']})",
        "",
        f"{info['blind_solvable']} of {n} questions are answered by at least one blind probe (options only, or "
        f"question and options; each question scored by a probe trained without its video, {info['folds']} "
        f"folds by video) or shortcut; {info['blind_proof']} by none. A blind-proof subset with every probe "
        f"and shortcut at chance: `desiq subset --blind-proof {info['file']} --data FILE --out SUBSET`.",
        "",
        "| solver | questions answered | % |",
        "|---|---:|---:|",
        *(f"| {name} | {c} | {100 * c / max(1, n):.1f} |" for name, c in info["solved_by"].items()),
        f"| at least one | {info['blind_solvable']} | {100 * info['blind_solvable'] / max(1, n):.1f} |",
        "",
    ]
    retrained = info["retrained"]
    if retrained.get("checks"):
        lines += [
            "Blind probes retrained and tested on the blind-proof questions alone (cross-fitted by video), "
            f'after {retrained["steps"]} filtering steps ("on the unsolved" rows above):',
            "",
            "| inputs | accuracy [95% interval] | chance | n | verdict |",
            "|---|---:|---:|---:|---|",
            *(_check_line(check) for check in retrained["checks"].values()),
            "",
        ]
    return "\n".join(lines)


def write_per_item(
    rows: Sequence[dict[str, Any]], retrained: Retrained, out_dir: Path, folds: int = FOLDS
) -> dict[str, Any]:
    """Write ``per_item.jsonl`` and add its summary to the probe's ``probe.json`` (key ``per_item``) and
    ``probe.md`` (a section), which must already be there."""
    info = summary(rows, retrained, folds)
    write_jsonl(out_dir / PER_ITEM, rows)
    report = json.loads((out_dir / "probe.json").read_text(encoding="utf-8"))
    write_json(out_dir / "probe.json", {**report, "per_item": info})
    markdown = (out_dir / "probe.md").read_text(encoding="utf-8")
    write_text(out_dir / "probe.md", markdown.rstrip("\n") + "\n\n" + summary_markdown(info))
    return info


def per_item_outputs(
    out_dir: Path,
    items: Sequence[MCQAItem],
    backend: ProbeBackend | None,
    probe: str,
    train: Sequence[MCQAItem] = (),
    seed: int = 0,
    progress: bool = True,
) -> dict[str, Any]:
    """``desiq probe --per-item``: compute the rows, write them and the summary, print the summary
    (``progress``: the cross-fitting folds as steps on stderr)."""
    import typer

    rows, retrained = per_item_rows(items, backend, probe, train, seed, progress=progress)
    info = write_per_item(rows, retrained, out_dir)
    typer.echo(summary_markdown(info))
    typer.echo(f"wrote {out_dir / PER_ITEM}", err=True)
    return info
