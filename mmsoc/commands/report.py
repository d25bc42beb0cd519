"""``mmsoc report``: JSON, Markdown and self-contained HTML reports over run directories."""

from __future__ import annotations

from pathlib import Path

import typer

from mmsoc.core.cli import commands

app = commands()


@app.command()
def report(
    run_dirs: list[Path] = typer.Argument(..., help="Run directories (config.json + predictions.jsonl)."),
    out: Path = typer.Option(..., "--out", help="Folder for report.json, report.md and report.html."),
    bootstrap: int = typer.Option(1000, "--bootstrap", min=1, help="Bootstrap replicates for the intervals."),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap resampling."),
    text_encoder: str = typer.Option("default", "--text-encoder", help="Sentence-transformers model id or folder "
                                     "for BERTScore and embedding similarity (default: the bundled all-MiniLM-L6-v2)."),
    no_embeddings: bool = typer.Option(False, "--no-embeddings", help="Skip BERTScore and embedding similarity."),
) -> None:
    """Recompute metrics from each run's predictions and write tables, intervals, comparisons and figures."""
    from rich.progress import Progress

    from mmsoc.report import ReportSettings, write_report

    settings = ReportSettings(n_boot=bootstrap, seed=seed, text_encoder=text_encoder, fast=no_embeddings)
    with Progress(transient=True) as progress:
        bar = progress.add_task("scoring", total=None)
        result = write_report(run_dirs, out, settings,
                              advance=lambda what: progress.update(bar, advance=1, description=f"scoring {what}"))
    typer.echo(f"wrote {out / 'report.html'} ({len(result.data['tasks'])} tasks, {len(result.data['runs'])} runs)")
