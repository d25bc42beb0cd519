"""table.md: the paper's Table 3 for one run, and input settings (or models) compared across runs.

Table 3 has a row per condition and the columns A4, A2, chance, n and the 95% interval; the last
column reads the A4 interval against chance. With ``--answer loglik`` a second table gives
``acc_norm``. The position table shows how often each position was chosen against how often it
was right. ``comparison_markdown`` puts several runs side by side (rows: model, adapter, inputs;
columns: each condition's A4), which is how input settings, zero-shot and fine-tuned models compare.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desiq.llm.metrics import verdict
from mmsoc.core.io import InputError
from mmsoc.core.markdown import md_text
from mmsoc.metrics.verdict import MIN_CLUSTERS, enough, too_few


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f}"


def _interval(interval: Sequence[float | None] | None) -> str:
    if not interval or interval[0] is None or interval[1] is None:
        return "-"
    return f"[{100 * interval[0]:.1f}, {100 * interval[1]:.1f}]"


def _row(cells: Sequence[object]) -> str:
    """One pipe-table row, every cell as literal text."""
    return "| " + " | ".join(md_text(cell) for cell in cells) + " |"


def _by(results: Sequence[dict]) -> dict[tuple[str, str], dict]:
    return {(r["condition"], r["config"]): r for r in results}


def _everything(results: Sequence[dict]) -> str:
    """The configuration with all options: A4 for Social-IQ, AK for a file with K options."""
    return next((r["config"] for r in results if r["config"] != "A2"), "A4")


def _conditions(results: Sequence[dict]) -> list[str]:
    return list(dict.fromkeys(r["condition"] for r in results))


def _title(metrics: dict[str, Any]) -> str:
    adapter = f" + adapter {metrics['adapter']}" if metrics.get("adapter") else ""
    how = (
        "log-likelihood of each answer (acc: summed)"
        if metrics["answer"] == "loglik"
        else f"written answers parsed by the {metrics['parse']} rule"
    )
    return md_text(f"{metrics['model']}{adapter}, inputs {metrics['inputs']}, {how}")


def conditions_table(
    results: Sequence[dict], key: str = "accuracy", interval: str = "ci95", min_videos: int = MIN_CLUSTERS
) -> list[str]:
    """Table 3's rows; with fewer than ``min_videos`` videos a row has no interval and no verdict."""
    by, k = _by(results), _everything(results)
    lines = [
        f"| condition | {k} | A2 | chance {k} / A2 | n {k} / A2 | {k} 95% interval | A2 95% interval | {k} vs chance |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for condition in _conditions(results):
        a4, a2 = by.get((condition, k), {}), by.get((condition, "A2"), {})
        chance = " / ".join(_pct(x.get("chance")) for x in (a4, a2))
        n = " / ".join(str(x.get("n", "-")) for x in (a4, a2))
        row = [
            md_text(condition),
            _pct(a4.get(key)),
            _pct(a2.get(key)),
            chance,
            n,
            _shown(a4, interval, min_videos),
            _shown(a2, interval, min_videos),
            md_text(verdict(a4, interval, min_videos)) if a4 else "-",
        ]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def _shown(entry: dict, interval: str = "ci95", min_videos: int = MIN_CLUSTERS) -> str:
    """The entry's interval, or "-" where its videos are too few for one."""
    return _interval(entry.get(interval)) if enough(entry.get("videos"), min_videos) else "-"


def run_markdown(metrics: dict[str, Any], min_videos: int | None = None) -> str:
    """The run's table.md (intervals and verdicts from ``min_videos`` videos: by default the run's own)."""
    least = metrics.get("min_videos", MIN_CLUSTERS) if min_videos is None else min_videos
    lines = [f"# {_title(metrics)}", ""]
    if not metrics["labelled"]:
        lines += [
            f"Unlabelled questions ({md_text(metrics.get('split') or 'no answer key')}): not scored. "
            "The answers are in submission.jsonl.",
            "",
        ]
    else:
        lines += [
            f"Accuracy in % (chance in %); intervals: 95% bootstrap over videos, drawn (and read against "
            f"chance) only from at least {least} videos.",
            "",
            *conditions_table(metrics["results"], min_videos=least),
            "",
        ]
        if metrics["answer"] == "loglik":
            lines += [
                "## acc_norm (log-likelihood per character of the answer)",
                "",
                *conditions_table(metrics["results"], "accuracy_norm", "ci95_norm", least),
                "",
            ]
        else:
            rates = md_text(
                ", ".join(f"{r['condition']} {r['config']} {_pct(r['success_rate'])}" for r in metrics["results"])
            )
            lines += [f"Success rate (replies in the requested format, %): {rates}", ""]
        lines += input_section(metrics, least)
        lines += circular_section(metrics["results"])
    lines += position_section(metrics)
    if metrics.get("missing"):
        lines += [
            "Asked without (missing media, rows): "
            + md_text(", ".join(f"{k} {v}" for k, v in metrics["missing"].items())),
            "",
        ]
    return "\n".join(lines)


def input_section(metrics: dict[str, Any], min_videos: int = MIN_CLUSTERS) -> list[str]:
    """The run's input setting against the options alone (NCAQ), on the conditions both were asked under."""
    by, k = _by(metrics["results"]), _everything(metrics["results"])
    if ("original", k) not in by or ("NCAQ", k) not in by:
        return []
    rows = [("a (NCAQ: options only)", by[("NCAQ", k)]), (metrics["inputs"], by[("original", k)])]
    lines = [
        f"## Input settings ({k}, original questions)",
        "",
        f"| inputs | {k} | 95% interval | vs chance |",
        "|---|---:|---:|---|",
    ]
    lines += [
        f"| {md_text(name)} | {_pct(r['accuracy'])} | {_shown(r, min_videos=min_videos)} | "
        f"{md_text(verdict(r, min_videos=min_videos))} |"
        for name, r in rows
    ]
    return [*lines, ""]


def circular_section(results: Sequence[dict]) -> list[str]:
    """The circular rows read for position, not against chance: one pass, every rotation, the questions whose
    pick stays in one slot or on one option, and whether the pick moves with the rotation (chi-square)."""
    circular = [r for r in results if r.get("position_consistency")]
    if not circular:
        return []
    lines = [
        "## Circular: position consistency (no verdict against chance)",
        "",
        "| config | single pass | circular | same slot | same option | chi-square | p | chosen position |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in circular:
        c = r["position_consistency"]
        follows = {True: "follows the rotation", False: "does not follow the rotation", None: "not tested"}
        chi2 = "-" if c["chi2"] is None else f"{c['chi2']:.2f}"
        p = "-" if c["p"] is None else f"{c['p']:.3g}"
        shares = [_pct(c[key]) for key in ("single_pass", "circular", "same_slot", "same_option")]
        cells = [r["config"], *shares, chi2, p, follows[c["follows_rotation"]]]
        lines.append(_row(cells))
    return [*lines, ""]


def position_section(metrics: dict[str, Any]) -> list[str]:
    position = metrics["position"]
    labels = [str(k) for k in range(len(position["chosen"]))]
    lines = [
        f"## Position bias ({md_text(metrics['position_condition'])}, A{len(labels)})",
        "",
        "| | " + " | ".join(labels) + " |",
        "|---|" + "---:|" * len(labels),
        "| chosen | " + " | ".join(map(str, position["chosen"])) + " |",
    ]
    if position["gold"] is not None:
        lines.append("| gold | " + " | ".join(map(str, position["gold"])) + " |")
    return [*lines, ""]


def read_metrics(run_dir: str | Path) -> dict[str, Any]:
    path = Path(run_dir) / "metrics.json"
    if not path.is_file():
        raise InputError(path, "not found (is this a finished `desiq eval` run folder?)")
    try:
        metrics = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise InputError(path, f"invalid JSON ({err.msg})", line=err.lineno) from None
    if not isinstance(metrics, dict) or "results" not in metrics or "inputs" not in metrics:
        raise InputError(path, "not the metrics.json of a `desiq eval` run (no results or inputs)")
    return metrics


def _compared(entry: dict | None, min_videos: int) -> str:
    if entry is None:
        return "-"
    if not enough(entry.get("videos"), min_videos):
        words = too_few(entry["videos"], "videos", min_videos) if "videos" in entry else "number of videos not recorded"
        return f"{_pct(entry['accuracy'])} ({md_text(words)})"
    return f"{_pct(entry['accuracy'])} {_interval(entry.get('ci95'))}"


def comparison_markdown(
    runs: Sequence[tuple[str, dict[str, Any]]], config: str = "A4", min_videos: int = MIN_CLUSTERS
) -> str:
    """Several runs side by side: a row per run, a column per condition (accuracy with its interval, none
    where the condition has fewer than ``min_videos`` videos)."""
    conditions = list(dict.fromkeys(r["condition"] for _, m in runs for r in m["results"]))
    lines = [
        f"# Input settings and models compared ({md_text(config)}, accuracy in %, 95% interval over videos, "
        f"drawn from at least {min_videos} videos)",
        "",
        _row(["run", "model", "adapter", "inputs", "answer", *conditions]),
        "|---|---|---|---|---|" + "---:|" * len(conditions),
    ]
    for name, metrics in runs:
        by = _by(metrics["results"])
        head = [name, metrics["model"], metrics.get("adapter") or "-", metrics["inputs"], metrics["answer"]]
        cells = [_compared(by.get((c, config)), min_videos) for c in conditions]
        lines.append(_row(head) + " " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
