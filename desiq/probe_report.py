"""Probe outputs: probe.json, probe.md (a table shaped like Table 3 of the DeSIQ paper), tsne.png."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from desiq.perturbations import PERTURBATIONS, SPLITS
from desiq.probe_table import ORIGINAL, ProbeReport, ProbeRow, accuracy_text, needs_ncaq_row
from desiq.probe_verdicts import judge_rows, versus
from desiq.probes import ProbeBackend
from desiq.probes.heuristics import battery_lines
from desiq.probes.linear import flatten
from desiq.records import MCQAItem
from mmsoc.core.io import atomic_open, write_json, write_text
from mmsoc.core.markdown import md_text
from mmsoc.metrics.verdict import ABOVE, HIGHER, LOWER, METHOD, MIN_CLUSTERS, NEGLIGIBLE, SAME_DIFFERENCE

NO_CLAIM = "–"


def _cell(report: ProbeReport, perturbation: str, config: str, data: str) -> tuple[str, str, str]:
    """(accuracy with its 95% interval, verdict, difference from the original) of one cell."""
    try:
        row = report.get(perturbation, config, data)
    except StopIteration:
        return "–", "–", "–"
    vs = versus(row.judgement.vs_original if row.judgement else None)
    return accuracy_text(row), row.verdict, vs


def _row(report: ProbeReport, label: str, perturbation: str, data: str, expected: tuple[str, str]) -> str:
    a2, a4 = (_cell(report, perturbation, config, data) for config in (report.configs[-1], report.configs[0]))
    cells = [label, a2[0], a4[0], a2[1], a4[1], a2[2], a4[2], *expected]
    return "| " + " | ".join(cells) + " |"


def _expected(report: ProbeReport, name: str) -> tuple[str, str]:
    """(where an answer-only bias puts the row, what a sound dataset gives), as the paper says them.

    The original row of an options-only probe is the paper's NCAQ; with more inputs the paper says
    nothing of the original row."""
    if name != ORIGINAL:
        record = PERTURBATIONS[name]
        return record.expected, record.sound.value
    if needs_ncaq_row(report.inputs):
        return NO_CLAIM, NO_CLAIM
    ncaq = next(p for p in PERTURBATIONS.values() if p.retrains)
    return ncaq.expected, ncaq.sound.value


def _label(report: ProbeReport, name: str) -> str:
    if name == ORIGINAL:
        return "original (= NCAQ: options only)" if not needs_ncaq_row(report.inputs) else "original"
    if PERTURBATIONS[name].retrains:
        return f"{name} (probe retrained on options only)"
    return name


def legend(report: ProbeReport) -> list[str]:
    """Which probe fills which row, in words."""
    ncaq = (
        "NCAQ: a second probe trained and scored on the options only (inputs a: no question, no "
        "transcript, video or audio), the paper's no-context-no-question experiment."
        if needs_ncaq_row(report.inputs)
        else "The probe sees the options only, so the original row is the paper's NCAQ experiment."
    )
    return [
        f"- original: the probe trained on inputs {md_text(report.inputs)} of the training file, scored on the eval "
        "file as it is; RIWI, RIWA, RAWI, RAWA: the same probe on the eval file so perturbed.",
        f"- {ncaq}",
        "- A2: a probe trained on A2 pairs (the correct option against each incorrect one); a pair counts only "
        "when the correct option scores strictly higher (ties are wrong, as in the paper's code). "
        f"{report.configs[0]}: a probe trained on the questions with all their options; the top-scoring option "
        "counts (first on a tie, as `np.argmax`). Where more than 1% of a cell's items tie at the top, the cell "
        "says how many, and the accuracy with each tie counted as a share (1/t of a hit among t tied options).",
        "- DeSIQ_d / DeSIQ_s (retrained): a probe trained from scratch on the DeSIQ rebuild of the training "
        "file (distractors: answers of questions from other videos / the same video), scored on the rebuild "
        "of the eval file.",
        "- verdict: from the row's test against chance, nothing else: at chance where the adjusted interval (shown) "
        "does not separate it, negligible where the accuracy is within "
        f"{report.results[0].min_effect if report.results else 2:g} points of chance, else above or below "
        f"({METHOD}); with fewer than "
        f"{report.results[0].min_videos if report.results else MIN_CLUSTERS} videos, no interval and no verdict. "
        "vs original: the row's accuracy minus the original row's on the same questions (matched by id; videos "
        "resampled jointly), with its adjusted interval in points: higher, lower, same or negligible. "
        "The last two columns: where the "
        "paper's answer-only T5-small landed (Table 3: RIWI and RAWA stay near the original, RIWA and RAWI "
        "fall to chance, the signature of an answer-only bias) and what the paper expects of a sound dataset "
        "(section 2: RIWI and RIWA near the original, RAWI and RAWA worse).",
    ]


def probe_markdown(report: ProbeReport) -> str:
    """Markdown table: one row per scored cell set, accuracy % with its 95% CI and verdict per configuration.

    Rows are the perturbations the report holds, then the DeSIQ splits it was retrained on; the
    expected columns come from the perturbation records.
    """
    chance = {c: report.get(ORIGINAL, c).chance for c in report.configs}
    everything = report.configs[0]
    lines = [
        f"# Bias probe: {md_text(report.probe)} on inputs {md_text(report.inputs)}",
        "",
        f"Trained on {report.n_train} questions ({md_text(report.train)}), scored on {report.n_eval} questions "
        f"({md_text(report.eval)}); seed {report.seed}. Accuracy in %, with a 95% bootstrap interval resampled by "
        f"video. Chance: {', '.join(f'{c} {100 * chance[c]:.1f}%' for c in report.configs)}.",
        "",
        *legend(report),
        "",
        f"| setting | A2 | {everything} | verdict A2 | verdict {everything} | vs original A2 "
        f"| vs original {everything} | the paper's answer-only model gave | a sound dataset gives (paper) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    perturbations = dict.fromkeys(r.perturbation for r in report.results if r.data == ORIGINAL)
    for name in perturbations:
        lines.append(_row(report, _label(report, name), name, ORIGINAL, _expected(report, name)))
    for split in SPLITS.values():
        if any(r.data == split.marker for r in report.results):
            lines.append(
                _row(
                    report,
                    f"{split.name} (retrained)",
                    ORIGINAL,
                    split.marker or "",
                    (split.expected, f"{split.sound.value} for an options-only probe"),
                )
            )
    for name in compared_names(report):
        lines.append(_row(report, f"{md_text(name)} (compared)", ORIGINAL, name, (NO_CLAIM, NO_CLAIM)))
    a4 = report.get(ORIGINAL)
    lines += [
        "",
        f"Original data, {everything}: {a4.verdict}"
        + (" — **biased**: the probe beats chance without the video." if a4.finding == ABOVE else "."),
    ]
    for split in SPLITS.values():
        if any(r.data == split.marker for r in report.results):
            row = report.get(ORIGINAL, everything, split.marker or "")
            lines.append(direction(split.name, row, a4, "rebuild", f" (the paper expects: {split.expected})"))
    for name in compared_names(report):
        lines.append(direction(md_text(name), report.get(ORIGINAL, everything, name), a4, "version"))
    if report.shortcuts is not None:
        lines += ["", "## The shortcut battery on the same questions (no training)", ""]
        lines += battery_lines(report.shortcuts)
    lines.append("")
    return "\n".join(lines)


def compared_names(report: ProbeReport) -> list[str]:
    """The other versions of the eval file the report scored (``--compare``), in order."""
    known = {ORIGINAL, *(split.marker for split in SPLITS.values())}
    return list(dict.fromkeys(r.data for r in report.results if r.data not in known))


def direction(name: str, row: ProbeRow, original: ProbeRow, what: str, expected: str = "") -> str:
    """One summary line: which way a rebuild or another version moves blind accuracy, then its verdict."""
    vs = row.judgement.vs_original if row.judgement else None
    before, after = (
        (vs.original, vs.original + vs.difference) if vs and vs.questions else (original.accuracy, row.accuracy)
    )
    moved = f"{100 * before:.1f}% to {100 * after:.1f}%"  # the figures compared: ties as a share, common questions
    if vs is not None and vs.finding == HIGHER:
        head = f"{name} raises blind accuracy from {moved}: the {what} creates a shortcut on this dataset"
    elif vs is not None and vs.finding == LOWER:
        head = f"{name} lowers blind accuracy from {moved}: the {what} removes part of a shortcut"
    elif vs is not None and vs.finding == NEGLIGIBLE:
        head = f"{name} moves blind accuracy by less than {row.min_effect:g} points ({moved})"
    elif vs is not None and vs.finding == SAME_DIFFERENCE:
        head = f"{name} does not move blind accuracy measurably ({moved})"
    else:
        head = f"{name}: blind accuracy {moved}, no verdict on the difference"
    survives = "; a shortcut remains above chance" if row.finding == ABOVE else ""
    return f"{head}{expected}. {row.config}: {row.verdict}{survives}."


def _tsne_points(features: np.ndarray, perplexity: float, seed: int) -> np.ndarray:
    """2-D t-SNE of ``features``, kept in the cache (``<cache root>/tsne/``, plain .npy read without pickle):
    the same features, perplexity and seed are embedded once across runs."""
    import sklearn
    from sklearn.manifold import TSNE

    from mmsoc.core.paths import cache_root

    settings = json.dumps([features.shape, perplexity, seed, sklearn.__version__]).encode()
    digest = hashlib.sha256(np.ascontiguousarray(features).tobytes() + settings).hexdigest()
    path = cache_root() / "tsne" / f"{digest}.npy"
    if path.is_file():
        try:
            return np.load(path, allow_pickle=False)
        except (OSError, ValueError):  # a damaged entry is computed again and replaced
            pass
    points = TSNE(n_components=2, perplexity=perplexity, init="pca", random_state=seed).fit_transform(features)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path, "wb") as handle:
        np.save(handle, points)
    return points


def tsne_figure(
    backend: ProbeBackend,
    items: Sequence[MCQAItem],
    path: Path,
    seed: int = 0,
    max_options: int = 2000,
    progress: bool = True,
) -> None:
    """t-SNE of option features, correct vs incorrect options (like Figure 3 of the DeSIQ paper); ``progress``:
    the step shown on stderr."""
    import matplotlib

    from mmsoc.core.progress import steps

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    features = np.asarray(backend.option_features(items), dtype=np.float32)
    correct = flatten(items)[2]
    rng = np.random.default_rng(seed)
    keep = np.sort(rng.permutation(len(features))[:max_options])
    features, correct = features[keep], correct[keep]
    perplexity = float(min(30, max(2, (len(features) - 1) // 3)))
    with steps(f"t-SNE of {len(features)} option features ({backend.name})", enabled=progress):
        points = _tsne_points(features, perplexity, seed)
    fig, ax = plt.subplots(figsize=(6, 5), dpi=120)
    ax.scatter(points[~correct, 0], points[~correct, 1], s=6, alpha=0.5, c="tab:blue", label="incorrect option")
    ax.scatter(points[correct, 0], points[correct, 1], s=6, alpha=0.7, c="tab:red", label="correct option")
    ax.set_title(f"t-SNE of option embeddings ({backend.name})")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.legend(loc="best", markerscale=3)
    fig.tight_layout()
    with atomic_open(path, "wb") as handle:
        fig.savefig(handle, format="png")
    plt.close(fig)


def write_probe_outputs(
    report: ProbeReport, out_dir: str | Path, backend: ProbeBackend | None = None, items: Sequence[MCQAItem] = ()
) -> Path:
    """Write probe.json, probe.md and (given the backend and eval items) tsne.png; rows not yet judged (the
    probe's and the shortcut battery's) are judged here as one family (``desiq.probe_verdicts.judge_rows``)."""
    battery = report.shortcuts.results if report.shortcuts is not None else []
    rows: list[Any] = [*report.results, *battery]
    if rows and any(row.judgement is None for row in rows):
        judged = judge_rows(rows, report.seed, rows[0].min_videos, rows[0].min_effect)
        report.results = judged[: len(report.results)]
        if report.shortcuts is not None:
            report.shortcuts.results = judged[len(report.results) :]
    out = Path(out_dir)
    write_json(out / "probe.json", report.to_json())
    write_text(out / "probe.md", probe_markdown(report))
    if backend is not None and items:
        tsne_figure(backend, items, out / "tsne.png", seed=report.seed)
    return out
