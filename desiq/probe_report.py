"""Probe outputs: probe.json, probe.md (a table shaped like Table 3 of the DeSIQ paper), tsne.png."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from desiq.perturbations import PERTURBATIONS, SPLITS
from desiq.probe import CONFIGS, ORIGINAL, ProbeReport
from desiq.probes import ProbeBackend
from desiq.probes.linear import flatten
from desiq.records import MCQAItem
from mmsoc.core.io import atomic_open, write_json, write_text

ORIGINAL_EXPECTED = "chance if the dataset is sound"


def _cell(report: ProbeReport, perturbation: str, config: str, data: str) -> str:
    try:
        row = report.get(perturbation, config, data)
    except StopIteration:
        return "–"
    low, high = row.ci95
    return f"{100 * row.accuracy:.2f} [{100 * low:.1f}, {100 * high:.1f}]"


def _row(report: ProbeReport, label: str, perturbation: str, data: str, expected: str) -> str:
    cells = " | ".join(_cell(report, perturbation, config, data) for config in ("A2", "A4"))
    return f"| {label} | {cells} | {expected} |"


def probe_markdown(report: ProbeReport) -> str:
    """Markdown table: one row per scored cell set, one column per configuration (accuracy %, 95% CI).

    Rows are the perturbations the report holds (their expected column from their records), then the
    DeSIQ splits it was retrained on.
    """
    chance = {c: report.get(ORIGINAL, c).chance for c in CONFIGS}
    lines = [
        f"# Bias probe: `{report.probe}` on inputs `{report.inputs}`",
        "",
        f"Trained on {report.n_train} questions ({report.train}), scored on {report.n_eval} questions "
        f"({report.eval}); seed {report.seed}. Accuracy in %, with a 95% bootstrap interval resampled by "
        f"video. Chance: A4 {100 * chance['A4']:.0f}%, A2 {100 * chance['A2']:.0f}%.",
        "",
        "| setting | A2 | A4 | a sound dataset gives |",
        "|---|---|---|---|",
    ]
    perturbations = dict.fromkeys(r.perturbation for r in report.results if r.data == ORIGINAL)
    for name in perturbations:
        expected = ORIGINAL_EXPECTED if name == ORIGINAL else PERTURBATIONS[name].expected
        lines.append(_row(report, name, name, ORIGINAL, expected))
    for split in SPLITS.values():
        if any(r.data == split.marker for r in report.results):
            lines.append(_row(report, f"{split.name} (retrained)", ORIGINAL, split.marker or "", split.expected))
    a4 = report.get(ORIGINAL, "A4")
    verdict = ("**biased**: the probe beats chance without the video" if a4.ci95[0] > a4.chance
               else "no answer-only bias detected at this sample size")
    lines += ["", f"Verdict on the original data (A4): {verdict}.", ""]
    return "\n".join(lines)


def tsne_figure(backend: ProbeBackend, items: Sequence[MCQAItem], path: Path, seed: int = 0,
                max_options: int = 2000) -> None:
    """t-SNE of option features, correct vs incorrect options (like Figure 3 of the DeSIQ paper)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.manifold import TSNE

    features = np.asarray(backend.option_features(items), dtype=np.float32)
    correct = flatten(items)[2]
    rng = np.random.default_rng(seed)
    keep = np.sort(rng.permutation(len(features))[:max_options])
    features, correct = features[keep], correct[keep]
    perplexity = float(min(30, max(2, (len(features) - 1) // 3)))
    points = TSNE(n_components=2, perplexity=perplexity, init="pca", random_state=seed).fit_transform(features)
    fig, ax = plt.subplots(figsize=(6, 5), dpi=120)
    ax.scatter(*points[~correct].T, s=6, alpha=0.5, c="tab:blue", label="incorrect option")
    ax.scatter(*points[correct].T, s=6, alpha=0.7, c="tab:red", label="correct option")
    ax.set_title(f"t-SNE of option embeddings ({backend.name})")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.legend(loc="best", markerscale=3)
    fig.tight_layout()
    with atomic_open(path, "wb") as handle:
        fig.savefig(handle, format="png")
    plt.close(fig)


def write_probe_outputs(report: ProbeReport, out_dir: str | Path, backend: ProbeBackend | None = None,
                        items: Sequence[MCQAItem] = ()) -> Path:
    """Write probe.json, probe.md and (given the backend and eval items) tsne.png."""
    out = Path(out_dir)
    write_json(out / "probe.json", report.to_json())
    write_text(out / "probe.md", probe_markdown(report))
    if backend is not None and items:
        tsne_figure(backend, items, out / "tsne.png", seed=report.seed)
    return out
