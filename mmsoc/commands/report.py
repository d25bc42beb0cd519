"""``mmsoc report``: JSON, Markdown and self-contained HTML reports over run folders."""

from __future__ import annotations

from pathlib import Path

import typer

from mmsoc.core.cli import MinClusters, commands, note
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
    out: Path = typer.Option(..., "--out", help="Folder for report.json, report.md and report.html."),
    bootstrap: int = typer.Option(1000, "--bootstrap", min=1, help="Bootstrap replicates for the intervals."),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap resampling."),
    text_encoder: str = typer.Option(
        "default",
        "--text-encoder",
        help="Sentence-transformers model id or folder "
        "for BERTScore and embedding similarity (default: the bundled all-MiniLM-L6-v2).",
    ),
    no_embeddings: bool = typer.Option(False, "--no-embeddings", help="Skip BERTScore and embedding similarity."),
    open_page: bool = typer.Option(
        False,
        "--open",
        help="Open report.html in the web browser (Python's webbrowser: "
        "the BROWSER environment variable, else the system's default).",
    ),
    min_clusters: MinClusters = MIN_CLUSTERS,
) -> None:
    """Recompute metrics from each run's predictions and write a summary, per-task figures and tables, intervals,
    comparisons, desiq-eval conditions and arena ratings."""
    import webbrowser

    from rich.markup import escape
    from rich.progress import Progress

    from mmsoc.report import ReportSettings, write_report

    settings = ReportSettings(
        n_boot=bootstrap, seed=seed, text_encoder=text_encoder, fast=no_embeddings, min_clusters=min_clusters
    )
    with Progress(transient=True) as progress:
        bar = progress.add_task("scoring", total=None)
        result = write_report(
            run_dirs,
            out,
            settings,
            advance=lambda what: progress.update(bar, advance=1, description=f"scoring {escape(what)}"),
        )
    page = (out / "report.html").resolve()
    data = result.data
    typer.echo(
        f"wrote {page} ({len(data['tasks'])} tasks, {len(data['runs'])} runs, {len(data['desiq'])} desiq runs, "
        f"{len(data['arena'])} arena ratings; report.md and report.json beside it)"
    )
    typer.echo(f"open it: {page.as_uri()}")
    if open_page and not webbrowser.open(page.as_uri()):
        note(f"could not start a web browser (set BROWSER to one); open {page.as_uri()} yourself")
