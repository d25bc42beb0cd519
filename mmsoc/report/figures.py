"""Report figures drawn with matplotlib (Agg) and returned as base64 PNG data URIs."""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from mmsoc.report.build import Report  # noqa: E402


@dataclass(frozen=True)
class Figure:
    """One embedded figure: its title and a ``data:image/png;base64,...`` URI."""

    title: str
    uri: str


def _to_uri(fig) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _bars(title: str, groups: list[str], series: dict[str, list[tuple[float, float, float] | None]]) -> Figure:
    """Grouped bars (one bar per series in each group) with interval whiskers; None leaves a gap."""
    fig, ax = plt.subplots(figsize=(max(4.0, 1.2 * len(groups) * max(1, len(series)) ** 0.5), 3.2))
    width = 0.8 / max(1, len(series))
    x = np.arange(len(groups))
    for k, (name, values) in enumerate(series.items()):
        points = [(i, v) for i, v in enumerate(values) if v is not None and np.isfinite(v[0])]
        if not points:
            continue
        pos = np.array([x[i] for i, _ in points]) + (k - (len(series) - 1) / 2) * width
        heights = np.array([v[0] for _, v in points])
        lows = np.array([v[1] if np.isfinite(v[1]) else v[0] for _, v in points])
        highs = np.array([v[2] if np.isfinite(v[2]) else v[0] for _, v in points])
        ax.bar(pos, heights, width, label=name,
               yerr=np.vstack([np.maximum(heights - lows, 0), np.maximum(highs - heights, 0)]), capsize=3)
    ax.set_xticks(x, groups, rotation=30, ha="right")
    ax.set_title(title)
    ax.legend(fontsize="small")
    return Figure(title, _to_uri(fig))


def metric_figures(report: Report) -> list[Figure]:
    """A bar chart per metric across runs (grouped by task), then the unified scores."""
    runs = [run["name"] for run in report.data["runs"]]
    figures = []
    keys = list(report.data["methods"])
    for key in keys:
        tasks = [entry for entry in report.data["tasks"] if key in entry["metrics"]]
        if not tasks or key == "n":
            continue
        series = {}
        for name in runs:
            series[name] = []
            for entry in tasks:
                cell = entry["runs"].get(name, {}).get("metrics", {}).get(key)
                series[name].append(None if cell is None else tuple(
                    float("nan") if cell[k] is None else cell[k] for k in ("value", "low", "high")))
        figures.append(_bars(f"{key} (95% bootstrap interval)", [e["task"] for e in tasks], series))
    units = list(next(iter(report.data["aggregates"].values()))["unified"]) if report.data["aggregates"] else []
    unified = {name: [None if agg["unified"][u] is None else (agg["unified"][u],) * 3 for u in units]
               for name, agg in report.data["aggregates"].items()}
    if units:
        figures.append(_bars("unified score per task (macro-F1 / ROUGE-L)", units, unified))
    return figures


def length_figures(report: Report) -> list[Figure]:
    """Histogram of response lengths in words per generation task, one outline per run and the references."""
    figures = []
    for task, by_name in report.lengths.items():
        fig, ax = plt.subplots(figsize=(5, 3))
        top = max(int(values.max()) if values.size else 0 for values in by_name.values())
        bins = np.linspace(0, max(top, 1), 21)
        for name, values in by_name.items():
            ax.hist(values, bins=bins, histtype="step", linewidth=1.5, label=name)
        ax.set_xlabel("words")
        ax.set_ylabel("responses")
        ax.set_title(f"{task}: response length")
        ax.legend(fontsize="small")
        figures.append(Figure(f"{task}: response length", _to_uri(fig)))
    return figures
