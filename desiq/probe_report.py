"""Probe outputs: probe.json, probe.md (a table shaped like Table 3 of the DeSIQ paper), tsne.png."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from desiq.probe import CONFIGS, ProbeReport
from desiq.probe_backends import ProbeBackend
from mmsoc.core.io import atomic_open, write_json, write_text
from desiq.records import MCQAItem

EXPECTED = {
    "original": "chance if the dataset is sound",
    "NCAQ": "chance (no question)",
    "RIWI": "about the original",
    "RIWA": "chance for an answer-only probe",
    "RAWI": "chance",
    "RAWA": "chance if answers depend on the question",
}


def _cell(report: ProbeReport, perturbation: str, config: str, data: str) -> str:
    try:
        row = report.get(perturbation, config, data)
    except StopIteration:
        return "–"
    low, high = row.ci95
    return f"{100 * row.accuracy:.2f} [{100 * low:.1f}, {100 * high:.1f}]"


def probe_markdown(report: ProbeReport) -> str:
    """Markdown table: one row per perturbation, one column per configuration (accuracy %, 95% CI)."""
    chance = {c: report.get("original", c).chance for c in CONFIGS}
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
    perturbations = [p for p in EXPECTED if any(r.perturbation == p and r.data == "original" for r in report.results)]
    for name in perturbations:
        lines.append(f"| {name} | {_cell(report, name, 'A2', 'original')} | "
                     f"{_cell(report, name, 'A4', 'original')} | {EXPECTED[name]} |")
    if any(r.data == "desiq_d" for r in report.results):
        lines.append(f"| DeSIQ_d (retrained) | {_cell(report, 'original', 'A2', 'desiq_d')} | "
                     f"{_cell(report, 'original', 'A4', 'desiq_d')} | chance: the bias is removed |")
    a4 = report.get("original", "A4")
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

    from desiq.probe_backends import flatten

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
