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


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f}"


def _interval(interval: Sequence[float] | None) -> str:
    return "-" if not interval else f"[{100 * interval[0]:.1f}, {100 * interval[1]:.1f}]"


def _by(results: Sequence[dict]) -> dict[tuple[str, str], dict]:
    return {(r["condition"], r["config"]): r for r in results}


def _conditions(results: Sequence[dict]) -> list[str]:
    return list(dict.fromkeys(r["condition"] for r in results))


def _title(metrics: dict[str, Any]) -> str:
    adapter = f" + adapter {metrics['adapter']}" if metrics.get("adapter") else ""
    how = (
        "log-likelihood of each answer (acc: summed)"
        if metrics["answer"] == "loglik"
        else f"written answers parsed by the {metrics['parse']} rule"
    )
    return f"{metrics['model']}{adapter}, inputs {metrics['inputs']}, {how}"


def conditions_table(results: Sequence[dict], key: str = "accuracy", interval: str = "ci95") -> list[str]:
    by = _by(results)
    lines = [
        "| condition | A4 | A2 | chance A4 / A2 | n A4 / A2 | A4 95% interval | A2 95% interval | A4 vs chance |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for condition in _conditions(results):
        a4, a2 = by.get((condition, "A4"), {}), by.get((condition, "A2"), {})
        chance = " / ".join(_pct(x.get("chance")) for x in (a4, a2))
        n = " / ".join(str(x.get("n", "-")) for x in (a4, a2))
        row = [
            condition,
            _pct(a4.get(key)),
            _pct(a2.get(key)),
            chance,
            n,
            _interval(a4.get(interval)),
            _interval(a2.get(interval)),
            verdict(a4, interval) if a4 else "-",
        ]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def run_markdown(metrics: dict[str, Any]) -> str:
    """The run's table.md."""
    lines = [f"# {_title(metrics)}", ""]
    if not metrics["labelled"]:
        lines += [
            f"Unlabelled questions ({metrics.get('split') or 'no answer key'}): not scored. "
            "The answers are in submission.jsonl.",
            "",
        ]
    else:
        lines += [
            "Accuracy in % (chance in %); intervals: 95% bootstrap over videos.",
            "",
            *conditions_table(metrics["results"]),
            "",
        ]
        if metrics["answer"] == "loglik":
            lines += [
                "## acc_norm (log-likelihood per character of the answer)",
                "",
                *conditions_table(metrics["results"], "accuracy_norm", "ci95_norm"),
                "",
            ]
        else:
            rates = ", ".join(f"{r['condition']} {r['config']} {_pct(r['success_rate'])}" for r in metrics["results"])
            lines += [f"Success rate (replies in the requested format, %): {rates}", ""]
        lines += input_section(metrics)
    lines += position_section(metrics)
    if metrics.get("missing"):
        lines += [
            "Asked without (missing media, rows): " + ", ".join(f"{k} {v}" for k, v in metrics["missing"].items()),
            "",
        ]
    return "\n".join(lines)


def input_section(metrics: dict[str, Any]) -> list[str]:
    """The run's input setting against the options alone (NCAQ), on the conditions both were asked under."""
    by = _by(metrics["results"])
    if ("original", "A4") not in by or ("NCAQ", "A4") not in by:
        return []
    rows = [("a (NCAQ: options only)", by[("NCAQ", "A4")]), (metrics["inputs"], by[("original", "A4")])]
    lines = [
        "## Input settings (A4, original questions)",
        "",
        "| inputs | A4 | 95% interval | vs chance |",
        "|---|---:|---:|---|",
    ]
    lines += [f"| {name} | {_pct(r['accuracy'])} | {_interval(r['ci95'])} | {verdict(r)} |" for name, r in rows]
    return [*lines, ""]


def position_section(metrics: dict[str, Any]) -> list[str]:
    position = metrics["position"]
    labels = [str(k) for k in range(len(position["chosen"]))]
    lines = [
        f"## Position bias ({metrics['position_condition']}, A4)",
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


def comparison_markdown(runs: Sequence[tuple[str, dict[str, Any]]], config: str = "A4") -> str:
    """Several runs side by side: a row per run, a column per condition (accuracy with its interval)."""
    conditions = list(dict.fromkeys(r["condition"] for _, m in runs for r in m["results"]))
    lines = [
        f"# Input settings and models compared ({config}, accuracy in %, 95% interval over videos)",
        "",
        "| run | model | adapter | inputs | answer | " + " | ".join(conditions) + " |",
        "|---|---|---|---|---|" + "---:|" * len(conditions),
    ]
    for name, metrics in runs:
        by = _by(metrics["results"])
        cells = [
            f"{_pct(by[(c, config)]['accuracy'])} {_interval(by[(c, config)]['ci95'])}" if (c, config) in by else "-"
            for c in conditions
        ]
        lines.append(
            f"| {name} | {metrics['model']} | {metrics.get('adapter') or '-'} | {metrics['inputs']} | "
            f"{metrics['answer']} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines) + "\n"
