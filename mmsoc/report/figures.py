"""Report figures drawn with matplotlib (Agg, imported on first use) and returned as base64 PNG data URIs.

Every figure gives each run the same colour (its place among the report's runs), so a reader follows one
model from the summary down to each task."""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Sequence

import numpy as np

from mmsoc.report.blocks import Figure, Table

Point = tuple[float | None, float | None, float | None]
"""(value, low, high); None where undefined."""


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def color(k: int) -> str:
    """The colour of the k-th run (tab10, then tab20's lighter shades)."""
    palette = [
        "#1f77b4",
        "#ff7f0e",
        "#2ca02c",
        "#d62728",
        "#9467bd",
        "#8c564b",
        "#e377c2",
        "#7f7f7f",
        "#bcbd22",
        "#17becf",
        "#aec7e8",
        "#ffbb78",
        "#98df8a",
        "#ff9896",
        "#c5b0d5",
        "#c49c94",
    ]
    return palette[k % len(palette)]


def to_uri(fig) -> str:
    """The figure as a PNG data URI (no timestamp or software metadata: same figure, same bytes)."""
    plt = _plt()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _ok(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def _points(ax, y: np.ndarray, points: Sequence[Point | None], colour: str, label: str | None) -> None:
    """Dots at ``y`` with horizontal interval bars; undefined points are left out."""
    keep = [(yy, p) for yy, p in zip(y, points) if p is not None and _ok(p[0])]
    if not keep:
        return
    ys = np.array([yy for yy, _ in keep])
    values = np.array([p[0] for _, p in keep])
    low = np.array([p[1] if _ok(p[1]) else p[0] for _, p in keep])
    high = np.array([p[2] if _ok(p[2]) else p[0] for _, p in keep])
    ax.errorbar(
        values,
        ys,
        xerr=np.vstack([np.maximum(values - low, 0), np.maximum(high - values, 0)]),
        fmt="o",
        color=colour,
        capsize=3,
        markersize=5,
        label=label,
    )


def dot_rows(
    title: str,
    rows: list[str],
    series: dict[str, list[Point | None]],
    colours: dict[str, str],
    xlabel: str,
    chance: list[float | None] | None = None,
    unit_range: bool = True,
) -> Figure:
    """A dot plot: one band per row, one dot (with its interval) per series inside the band; optional chance
    marks per row. The first row is at the top."""
    plt = _plt()
    n = max(1, len(series))
    fig, ax = plt.subplots(figsize=(8.5, 0.9 + len(rows) * (0.28 + 0.14 * n)))
    base = np.arange(len(rows))[::-1].astype(float)
    for k, (name, points) in enumerate(series.items()):
        offset = (k - (n - 1) / 2) * min(0.7 / n, 0.22)
        _points(ax, base - offset, points, colours[name], name)
    if chance:
        for yy, level in zip(base, chance):
            if _ok(level):
                ax.plot([level, level], [yy - 0.42, yy + 0.42], color="black", linestyle=":", linewidth=1.2)
        ax.plot([], [], color="black", linestyle=":", label="chance")
    ax.set_yticks(base, rows)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    if unit_range:
        ax.set_xlim(-0.02, 1.02)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    for yy in base[:-1]:
        ax.axhline(yy - 0.5, color="#ddd", linewidth=0.8)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return Figure(title, to_uri(fig))


def metric_panels(
    title: str, metrics: list[str], series: dict[str, list[Point | None]], colours: dict[str, str]
) -> Figure:
    """Small multiples: one panel per metric (its own scale), one dot with its interval per run."""
    plt = _plt()
    columns = min(4, max(1, len(metrics)))
    lines = math.ceil(len(metrics) / columns)
    names = list(series)
    fig, axes = plt.subplots(
        lines, columns, figsize=(3.3 * columns, 0.3 + lines * (0.5 + 0.24 * len(names))), squeeze=False
    )
    y = np.arange(len(names))[::-1].astype(float)
    for i, metric in enumerate(metrics):
        ax = axes[i // columns][i % columns]
        for k, name in enumerate(names):
            _points(ax, y[k : k + 1], [series[name][i]], colours[name], None)
        ax.set_title(metric, fontsize="small")
        ax.set_yticks(y, [] if i % columns else names, fontsize="small")
        ax.set_ylim(-0.6, len(names) - 0.4)
        ax.tick_params(axis="x", labelsize="x-small")
        ax.grid(axis="x", alpha=0.3)
    for j in range(len(metrics), lines * columns):
        axes[j // columns][j % columns].axis("off")
    fig.tight_layout()
    return Figure(title, to_uri(fig))


def _grid(count: int, width: float, height: float, per_row: int = 4):
    """A figure of ``count`` panels of ``width`` x ``height`` inches, at most ``per_row`` a row; the unused
    cells are hidden. Returns (figure, the panels in order)."""
    plt = _plt()
    columns = min(per_row, count)
    rows = math.ceil(count / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(width * columns, height * rows), squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax in flat[count:]:
        ax.axis("off")
    return fig, flat[:count]


def heatmaps(title: str, matrices: dict[str, dict], data: Table | None = None) -> Figure:
    """Confusion matrices as annotated heatmaps, one per run (rows reference, columns prediction)."""
    first = next(iter(matrices.values()))
    fig, axes = _grid(len(matrices), 0.9 + 0.75 * len(first["columns"]), 0.9 + 0.6 * len(first["labels"]))
    for ax, (name, matrix) in zip(axes, matrices.items()):
        values = np.array(matrix["matrix"], dtype=float)
        ax.imshow(values, cmap="Blues", vmin=0, vmax=max(1.0, values.max()), aspect="auto")
        for (r, c), v in np.ndenumerate(values):
            ax.text(
                c,
                r,
                str(int(v)),
                ha="center",
                va="center",
                fontsize="small",
                color="white" if v > values.max() / 2 else "black",
            )
        ax.set_xticks(range(len(matrix["columns"])), matrix["columns"], rotation=30, ha="right", fontsize="small")
        ax.set_yticks(range(len(matrix["labels"])), matrix["labels"], fontsize="small")
        ax.set_xlabel("prediction", fontsize="small")
        ax.set_ylabel("reference", fontsize="small")
        ax.set_title(name, fontsize="small")
    fig.tight_layout()
    return Figure(title, to_uri(fig), data)


def length_histogram(task: str, by_name: dict[str, np.ndarray], colours: dict[str, str]) -> Figure:
    """Response lengths in words, one outline per run and one for the references."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 2.8))
    top = max(int(values.max()) if values.size else 0 for values in by_name.values())
    bins = np.linspace(0, max(top, 1), 21)
    for name, values in by_name.items():
        ax.hist(values, bins=bins, histtype="step", linewidth=1.5, label=name, color=colours.get(name, "black"))
    ax.set_xlabel("words")
    ax.set_ylabel("responses")
    title = f"{task}: response length in words (runs and references)"
    ax.legend(fontsize="small")
    return Figure(title, to_uri(fig))


def position_bars(title: str, runs: dict[str, dict], colours: dict[str, str]) -> Figure:
    """Chosen against gold answer positions, one panel per run (shares of answers)."""
    fig, axes = _grid(len(runs), 3.4, 2.6)
    for ax, (name, position) in zip(axes, runs.items()):
        chosen, gold = np.array(position["chosen"], float), np.array(position["gold"], float)
        x = np.arange(len(chosen))
        ax.bar(x - 0.2, chosen / max(chosen.sum(), 1), 0.4, color=colours.get(name, "#1f77b4"), label="chosen")
        ax.bar(x + 0.2, gold / max(gold.sum(), 1), 0.4, color="#bbb", label="gold")
        ax.set_xticks(x, [chr(ord("A") + k) for k in x])
        ax.set_ylabel("share of answers", fontsize="small")
        ax.set_title(name, fontsize="small")
        ax.legend(fontsize="x-small")
    fig.tight_layout()
    return Figure(title, to_uri(fig))
