"""The report's opening answer (who leads on each task, and how sure we are) and the entries of desiq-eval runs
and arena ratings: every verdict here is derived from the numbers (intervals, tests), never from a name."""

from __future__ import annotations

import math
from typing import Any

from mmsoc.report.sources import ArenaRatings, DesiqRun, Sources

DESIQ_HEADLINE = "original"
"""The desiq condition the summary shows (the unperturbed questions)."""
ALPHA = 0.05


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def summary(data: dict) -> list[dict]:
    """One row per MM-Soc task (its headline metric) and per desiq headline configuration: each run's value
    and interval, the leader and whether it is separated from the runner-up.

    MM-Soc leaders are tested by the report's paired bootstrap of the difference (the interval excludes 0);
    desiq runs have no common resamples here, so their leader counts as separated only when the two 95%
    intervals do not overlap (conservative)."""
    comparisons = {(c["task"], c["a"], c["b"]): c for c in data.get("comparisons", [])}
    rows = []
    for entry in data.get("tasks", []):
        key = entry["headline"]
        runs = {
            name: {k: cell["metrics"][key][k] for k in ("value", "low", "high")}
            for name, cell in entry["runs"].items()
            if key in cell["metrics"]
        }
        row = {"task": entry["task"], "metric": key, "runs": runs, **_leader(runs)}
        if row.get("runner_up"):
            a, b = row["leader"], row["runner_up"]
            comp, flip = comparisons.get((entry["task"], a, b)), False
            if comp is None:
                comp, flip = comparisons.get((entry["task"], b, a)), True
            if comp is not None and key in comp["metrics"]:
                d = comp["metrics"][key]
                diff, low, high = (
                    (-d["difference"], -d["high"], -d["low"]) if flip else (d["difference"], d["low"], d["high"])
                )
                row.update(
                    difference=diff, low=low, high=high, test="paired bootstrap", separated=_finite(low) and low > 0
                )
        rows.append(row)
    for config in dict.fromkeys(
        r["config"] for run in data.get("desiq", []) for r in run["results"] if r["condition"] == DESIQ_HEADLINE
    ):
        runs, chance = {}, None
        for run in data["desiq"]:
            for r in run["results"]:
                if r["condition"] == DESIQ_HEADLINE and r["config"] == config:
                    runs[run["name"]] = {"value": r["accuracy"], "low": r["ci95"][0], "high": r["ci95"][1]}
                    chance = r["chance"]
        row = {
            "task": f"Social-IQ {DESIQ_HEADLINE} {config}",
            "metric": "accuracy",
            "runs": runs,
            "chance": chance,
            **_leader(runs),
        }
        if row.get("runner_up"):
            lead, second = runs[row["leader"]], runs[row["runner_up"]]
            row.update(
                difference=lead["value"] - second["value"],
                test="non-overlapping 95% intervals",
                separated=_finite(lead["low"]) and _finite(second["high"]) and lead["low"] > second["high"],
            )
        rows.append(row)
    return rows


def _leader(runs: dict[str, dict]) -> dict:
    """The run with the highest value (undefined values last) and the next one."""
    ranked = sorted(runs, key=lambda name: -runs[name]["value"] if _finite(runs[name]["value"]) else math.inf)
    ranked = [name for name in ranked if _finite(runs[name]["value"])]
    return {"leader": ranked[0] if ranked else None, "runner_up": ranked[1] if len(ranked) > 1 else None}


def chance_verdict(low: float | None, high: float | None, chance: float) -> str:
    """Where the 95% interval lies against chance."""
    if not (_finite(low) and _finite(high)):
        return "no interval"
    if low > chance:
        return "above chance"
    if high < chance:
        return "below chance"
    return "not different from chance"


def position_test(chosen: list[int], gold: list[int]) -> dict:
    """Pearson's chi-square test of the chosen positions against the gold positions' shares (scipy)."""
    from scipy.stats import chisquare

    total, gold_total = sum(chosen), sum(gold)
    if not total or not gold_total or 0 in gold:
        return {"chi2": None, "p": None, "verdict": "not tested (no answers, or a position that is never gold)"}
    expected = [g * total / gold_total for g in gold]
    result = chisquare(chosen, f_exp=expected)
    p = float(result.pvalue)
    verdict = (
        "chosen positions differ from the gold positions"
        if p < ALPHA
        else "no evidence that chosen positions differ from the gold positions"
    )
    sign = "<" if p < ALPHA else ">="
    return {"chi2": float(result.statistic), "p": p, "verdict": f"{verdict} (chi-square, p {sign} {ALPHA})"}


def desiq_entry(run: DesiqRun) -> dict:
    """A desiq-eval run as the report shows it: the contract's fields, a verdict per result, the position test."""
    results = [{**r, "verdict": chance_verdict(r["ci95"][0], r["ci95"][1], r["chance"])} for r in run.results]
    return {
        "name": run.name,
        "path": str(run.path),
        "model": run.model,
        "inputs": run.inputs,
        "answer": run.answer,
        "results": results,
        "position": {**run.position, **position_test(run.position["chosen"], run.position["gold"])},
    }


def arena_entry(ratings: ArenaRatings) -> dict:
    return {"name": ratings.name, "path": str(ratings.path), **ratings.ratings}


def add_sources(data: dict, sources: Sources) -> None:
    """Add the desiq and arena entries, then the summary, to the report's data."""
    data["desiq"] = [desiq_entry(run) for run in sources.desiq]
    data["arena"] = [arena_entry(r) for r in sources.arena]
    data["summary"] = summary(data)
