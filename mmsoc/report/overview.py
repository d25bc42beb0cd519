"""The report's opening answer (who leads on each task, and how sure we are) and the entries of desiq-eval runs
and arena ratings: every verdict here is derived from the numbers (intervals, tests), never from a name."""

from __future__ import annotations

import math

from mmsoc.metrics.verdict import CHANCE_WORDS, MIN_CLUSTERS, NO_VERDICT, enough, interval_verdict, read_finding
from mmsoc.report.sources import ArenaRatings, DesiqRun, Sources

DESIQ_HEADLINE = "original"
CIRCULAR = "circular"
"""desiq eval's condition of every rotation (``desiq.llm.conditions.CIRCULAR``)."""
"""The desiq condition the summary shows (the unperturbed questions)."""
ALPHA = 0.05


def _finite(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _least(data: dict) -> int:
    return int(data.get("settings", {}).get("min_clusters", MIN_CLUSTERS))


def summary(data: dict) -> list[dict]:
    """One row per MM-Soc task (its headline metric) and per desiq headline configuration: each run's value
    and interval, the two highest runs, their difference and whether a leader is separated from the rest.

    MM-Soc leaders come from the report's paired bootstrap on the items both runs answered (the row says how
    many): the leader is the run whose paired difference with every other run has an interval above 0.
    Desiq runs have no common resamples here, so their leader counts as separated only when the two 95%
    intervals do not overlap (conservative). Too few items (videos) for an interval: no leader."""
    comparisons = {(c["task"], c["a"], c["b"]): c for c in data.get("comparisons", [])}
    rows = []
    for entry in data.get("tasks", []):
        key = entry["headline"]
        runs = {
            name: {k: cell["metrics"][key][k] for k in ("value", "low", "high")}
            for name, cell in entry["runs"].items()
            if key in cell["metrics"]
        }
        row = {"task": entry["task"], "metric": key, "runs": runs, **_ranked(runs)}
        row.update(_paired_leader(entry["task"], key, row, comparisons, _least(data)))
        rows.append(row)
    return rows + _desiq_summary(data)


def _desiq_summary(data: dict) -> list[dict]:
    rows = []
    least = _least(data)
    for config in dict.fromkeys(
        r["config"] for run in data.get("desiq", []) for r in run["results"] if r["condition"] == DESIQ_HEADLINE
    ):
        runs, chance = {}, None
        for run in data["desiq"]:
            for r in run["results"]:
                if r["condition"] == DESIQ_HEADLINE and r["config"] == config:
                    low, high = r["ci95"]
                    runs[run["name"]] = {"value": r["accuracy"], "low": low, "high": high, "videos": r.get("videos")}
                    chance = r["chance"]
        row = {
            "task": f"Social-IQ {DESIQ_HEADLINE} {config}",
            "metric": "accuracy",
            "runs": runs,
            "chance": chance,
            "leader": None,
            **_ranked(runs),
        }
        if row["second"]:
            lead, second = runs[row["first"]], runs[row["second"]]
            fewest = min((lead["videos"], second["videos"]), key=lambda v: -1 if v is None else v)
            separated = _finite(lead["low"]) and _finite(second["high"]) and lead["low"] > second["high"]
            row.update(difference=lead["value"] - second["value"], test="non-overlapping 95% intervals")
            row["verdict"] = _words(separated, fewest, "videos", least)
            row["leader"] = row["first"] if separated and enough(fewest, least) else None
        rows.append(row)
    return rows


def _ranked(runs: dict[str, dict]) -> dict:
    """The run with the highest value (undefined values left out) and the next one."""
    ranked = sorted((name for name in runs if _finite(runs[name]["value"])), key=lambda name: -runs[name]["value"])
    return {"first": ranked[0] if ranked else None, "second": ranked[1] if len(ranked) > 1 else None}


def _difference(task: str, key: str, a: str, b: str, comparisons: dict) -> dict | None:
    """Run a minus run b on the items both answered (``shared``), from the report's paired comparisons."""
    comp, flip = comparisons.get((task, a, b)), False
    if comp is None:
        comp, flip = comparisons.get((task, b, a)), True
    if comp is None or key not in comp["metrics"]:
        return None
    d = comp["metrics"][key]
    low, high = (d["high"], d["low"]) if flip else (d["low"], d["high"])
    sign = -1 if flip else 1
    return {
        "difference": sign * d["difference"],
        "low": None if low is None else sign * low,
        "high": None if high is None else sign * high,
        "shared": comp["n_common"],
    }


def _paired_leader(task: str, key: str, row: dict, comparisons: dict, least: int) -> dict:
    """The two highest runs' paired difference on their shared items, and the leader: the run of the two
    whose paired difference with every other run lies above 0 (None when there is no such run)."""
    first, second = row["first"], row["second"]
    pair = _difference(task, key, first, second, comparisons) if second else None
    if pair is None:
        return {"leader": None}
    winner = first if _finite(pair["low"]) and pair["low"] > 0 else None
    if _finite(pair["high"]) and pair["high"] < 0:
        winner = second
    if winner is not None:
        against = [_difference(task, key, winner, other, comparisons) for other in row["runs"] if other != winner]
        if not all(d is not None and _finite(d["low"]) and d["low"] > 0 for d in against):
            winner = None
    return {
        **pair,
        "test": "paired bootstrap",
        "leader": winner,
        "verdict": _words(winner is not None, pair["shared"], "items", least),
    }


def _words(separated: bool, clusters: int | None, unit: str, least: int) -> str:
    if clusters is None or not enough(clusters, least):
        return interval_verdict(None, None, 0.0, clusters, unit, least)
    return "separated" if separated else "not separated"


def chance_verdict(low: float | None, high: float | None, chance: float, videos: int | None, least: int) -> str:
    """Where the 95% interval lies against chance, from at least ``least`` videos."""
    return interval_verdict(low, high, chance, videos, "videos", least)


def desiq_verdict(result: dict, least: int) -> dict[str, str]:
    """A desiq-eval result's ``verdict`` and ``finding`` (``mmsoc.metrics.verdict``): the run's family-wise
    finding where its metrics.json holds one, else the 95% interval's; a circular result has none against
    chance (its chance, (1/k)^k, is beaten by any model): its position consistency says more."""
    if result.get("condition") == CIRCULAR or result.get("position_consistency"):
        return {"verdict": "no chance verdict (circular: see its position consistency)", "finding": NO_VERDICT}
    low, high = result["ci95"] or (None, None)
    words = chance_verdict(low, high, result["chance"], result.get("videos"), least)
    finding = result.get("finding") or read_finding(
        result.get("accuracy"), low, high, result["chance"], result.get("videos"), least
    )
    if enough(result.get("videos"), least) and words in CHANCE_WORDS:
        words = finding
    return {"verdict": words, "finding": finding if enough(result.get("videos"), least) else NO_VERDICT}


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


def desiq_entry(run: DesiqRun, least: int = MIN_CLUSTERS) -> dict:
    """A desiq-eval run as the report shows it: the contract's fields, a verdict per result (from at least
    ``least`` videos), the position test."""
    results = [{**r, **desiq_verdict(r, least)} for r in run.results]
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
    data["desiq"] = [desiq_entry(run, _least(data)) for run in sources.desiq]
    data["arena"] = [arena_entry(r) for r in sources.arena]
    data["summary"] = summary(data)
