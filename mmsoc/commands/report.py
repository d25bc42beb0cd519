"""``mmsoc report`` (and ``desiq report``, the same command): JSON, Markdown and self-contained HTML reports
over run folders."""

from __future__ import annotations

from pathlib import Path

import typer

from mmsoc.core.cli import commands, note
from mmsoc.core.options import MinClusters, Progress, Seed, option
from mmsoc.metrics.verdict import MIN_CLUSTERS

app = commands()


@app.command()
def report(
    run_dirs: list[Path] = typer.Argument(
        ...,
        help="Run folders: 'mmsoc eval' runs (config.json + "
        "predictions.jsonl), 'desiq eval' runs (metrics.json) and "
        "'mmsoc arena rate' folders (ratings.json), in any mix.",
    ),
    out: Path = option(..., "--out", help="Folder for report.json, report.md and report.html."),
    bootstrap: int = option(1000, "--bootstrap", min=1, help="Bootstrap replicates for the intervals."),
    seed: Seed = 0,
    text_encoder: str = option(
        "default",
        "--text-encoder",
        help="Sentence-transformers model id or folder "
        "for BERTScore and embedding similarity (default: the bundled all-MiniLM-L6-v2).",
    ),
    fast_metrics: bool = option(False, "--fast-metrics"),
    open_page: bool = option(
        False,
        "--open",
        help="Open report.html in the web browser (Python's webbrowser: "
        "the BROWSER environment variable, else the system's default).",
    ),
    min_clusters: MinClusters = MIN_CLUSTERS,
    progress: Progress = True,
) -> None:
    """Report on runs side by side: report.json, report.md and one offline report.html.

    Metrics are recomputed from each run's predictions: a summary, per-task figures and tables, intervals,
    comparisons, desiq-eval conditions and arena ratings."""
    import webbrowser

    from mmsoc.report import ReportSettings, write_report

    settings = ReportSettings(
        n_boot=bootstrap,
        seed=seed,
        text_encoder=text_encoder,
        fast=fast_metrics,
        min_clusters=min_clusters,
        progress=progress,
    )
    result = write_report(run_dirs, out, settings)
    page = (out / "report.html").resolve()
    data = result.data
    for warning in data["what_ran"]["warnings"]:
        note(f"warning: the runs compared differ in {warning} (provenance.json)")
    typer.echo(
        f"wrote {page} ({len(data['tasks'])} tasks, {len(data['runs'])} runs, {len(data['desiq'])} desiq runs, "
        f"{len(data['arena'])} arena ratings; report.md and report.json beside it)"
    )
    typer.echo(f"open it: {page.as_uri()}")
    if open_page and not webbrowser.open(page.as_uri()):
        note(f"could not start a web browser (set BROWSER to one); open {page.as_uri()} yourself")
