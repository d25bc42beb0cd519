"""A ``desiq eval`` run on its full question set and on a subset, side by side (``desiq table --subset``).

The subset is the ``per_item.jsonl`` of ``desiq probe --per-item`` on the run's QA file (its blind-proof
questions: those no row calls ``blind_solvable``), or a QA file such as the one ``desiq subset`` writes,
whose questions are matched to the run's by qid, video and options in any order (as the run asked the original
questions: its ``original``, ``NCAQ`` or ``circular`` rows). Both columns are computed from the run's
prediction rows by the same function as its ``metrics.json`` (``desiq.llm.metrics.condition_result``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desiq.llm.conditions import CIRCULAR, NCAQ, ORIGINAL
from desiq.llm.metrics import condition_result, verdict
from mmsoc.core.io import InputError, read_jsonl
from mmsoc.metrics.verdict import MIN_CLUSTERS

AS_RELEASED = (ORIGINAL, NCAQ, CIRCULAR)
"""Conditions whose unrotated rows carry a question's options as the file has them."""


def run_rows(run_dir: Path) -> list[dict[str, Any]]:
    path = run_dir / "predictions.jsonl"
    if not path.is_file():
        raise InputError(path, "not found (is this a `desiq eval` run folder?)")
    return [row for _, row in read_jsonl(path)]


def _key(qid: str, video: str, options: Sequence[str]) -> tuple[str, str, tuple[str, ...]]:
    """A question by qid, video and its options in any order (``desiq subset`` may reorder them)."""
    return (qid, video, tuple(sorted(options)))


def subset_questions(path: Path, rows: Sequence[dict[str, Any]]) -> set[str]:
    """The run's question ids (``source`` of its rows) that are in the subset ``path`` names."""
    from desiq.subset import is_per_item, read_flags

    asked = {row["source"]: row["qid"] for row in rows}
    if is_per_item(path):
        flags = read_flags(path)
        unknown = next((source for source in asked if source not in flags), None)
        if unknown is not None:
            raise InputError(path, f"has no row for question {unknown!r} of the run: made from another QA file?")
        return {source for source in asked if not flags[source]["blind_solvable"]}
    from desiq.formats import read_mcqa

    released = {
        _key(row["qid"], row["vid_name"], row["options"]): row["source"]
        for row in rows
        if row["condition"] in AS_RELEASED and row["config"] == "A4" and row["rotation"] == 0
    }
    if not released:
        raise InputError(path, "the run asked no original, NCAQ or circular question to match by; pass per_item.jsonl")
    wanted = [(item.qid, _key(item.qid, item.video, item.options)) for item in read_mcqa(path)]
    missing = next((qid for qid, key in wanted if key not in released), None)
    if missing is not None:
        raise InputError(path, f"question {missing!r} is not one the run asked (same qid, video and options)")
    return {released[key] for _, key in wanted}


def side_by_side(
    metrics: dict[str, Any], rows: Sequence[dict[str, Any]], keep: set[str], min_videos: int = MIN_CLUSTERS
) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """Per result of the run: the full set's entry and the subset's (None where the subset has none)."""
    kept = [row for row in rows if row["source"] in keep]
    answer, parse, seed = metrics["answer"], metrics.get("parse") or "lenient", metrics.get("seed", 0)
    out = []
    for result in metrics["results"]:
        c, config = result["condition"], result["config"]
        full = condition_result(rows, c, config, answer, parse, seed, min_videos)
        if full is not None:
            out.append((full, condition_result(kept, c, config, answer, parse, seed, min_videos)))
    return out


def _cell(entry: dict[str, Any] | None) -> str:
    if entry is None or entry["accuracy"] is None:
        return "- | - | 0"
    interval = entry.get("ci95")
    shown = f"[{100 * interval[0]:.1f}, {100 * interval[1]:.1f}]" if interval else "-"
    return f"{100 * entry['accuracy']:.2f} | {shown} | {entry['n']}"


def subset_markdown(
    name: str,
    metrics: dict[str, Any],
    pairs: Sequence[tuple[dict, dict | None]],
    subset: Path,
    counts: tuple[int, int],
    min_videos: int = MIN_CLUSTERS,
) -> str:
    """One run's table: each condition's accuracy on the full set and on the subset."""
    kept, asked = counts
    lines = [
        f"## {name}: full set and subset {subset.name}",
        "",
        f"{metrics['model']}, inputs {metrics['inputs']}; the subset keeps {kept} of the run's {asked} questions. "
        "Accuracy in %, 95% interval over videos; the verdict reads the subset's interval against chance.",
        "",
        "| condition | config | full | full 95% | n | subset | subset 95% | n | chance | subset vs chance |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for full, part in pairs:
        words = verdict(part, min_videos=min_videos) if part is not None else "-"
        lines.append(
            f"| {full['condition']} | {full['config']} | {_cell(full)} | {_cell(part)} | "
            f"{100 * full['chance']:.2f} | {words} |"
        )
    return "\n".join([*lines, ""])


def run_subset_markdown(name: str, run_dir: Path, subset: Path, min_videos: int = MIN_CLUSTERS) -> str:
    """The section ``desiq table --subset`` adds for one run."""
    from desiq.llm.table import read_metrics

    metrics = read_metrics(run_dir)
    if not metrics.get("labelled", True):
        raise InputError(run_dir / "metrics.json", "the run's questions have no answer key: nothing to compare")
    rows = run_rows(run_dir)
    keep = subset_questions(subset, rows)
    pairs = side_by_side(metrics, rows, keep, min_videos)
    counts = (len(keep), len({row["source"] for row in rows}))
    return subset_markdown(name, metrics, pairs, subset, counts, min_videos)
