"""``mmsoc score``: score predictions made by any tool against their references."""

from __future__ import annotations

from pathlib import Path

import typer

from mmsoc.core.cli import commands

app = commands()


@app.command()
def score(
    task: str = typer.Option(..., "--task", help="Task id (see 'mmsoc tasks')."),
    predictions: Path = typer.Option(..., "--predictions", help="JSONL or CSV file with id, prediction and "
                                     "reference per row (tagging: a list or a comma-separated string)."),
    out: Path = typer.Option(..., "--out", help="Folder for metrics.json (flat metrics) and score_info.json "
                             "(how they were computed, intervals, skipped rows)."),
    text_encoder: str = typer.Option("default", "--text-encoder", help="Sentence-transformers model id or folder "
                                     "for BERTScore and embedding similarity (default: the bundled all-MiniLM-L6-v2)."),
    no_embeddings: bool = typer.Option(False, "--no-embeddings", help="Skip BERTScore and embedding similarity."),
    bootstrap: int = typer.Option(1000, "--bootstrap", min=0, help="Bootstrap replicates for the 95% intervals "
                                  "in score_info.json (0: none)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap resampling."),
) -> None:
    """Score a predictions file for one task and write OUT/metrics.json and OUT/score_info.json."""
    from mmsoc.core.io import write_json
    from mmsoc.metrics.registry import find_metric
    from mmsoc.tasks import get_task, score_task_detailed
    from mmsoc.tasks.prediction_files import read_prediction_file
    from mmsoc.metrics.stats import percentile_interval, replicate_values, resample_counts
    from mmsoc.report import json_safe

    kind = get_task(task).kind
    rows = read_prediction_file(predictions, task)
    result = score_task_detailed(task, rows.predictions, rows.references, text_encoder=text_encoder,
                                 fast=no_embeddings)
    counts = resample_counts(len(rows.ids), bootstrap, seed) if bootstrap else []
    intervals = {key: percentile_interval(replicate_values(stat, counts)) for key, stat in result.stats.items()} \
        if counts else {}
    write_json(out / "metrics.json", json_safe(result.metrics))
    write_json(out / "score_info.json", json_safe({
        "task": task, "predictions": predictions.name, "n": len(rows.ids), "skipped_rows": rows.skipped,
        "info": {k: v for k, v in result.info.items() if k != "macro_labels"},
        "intervals": {"method": f"95% percentile bootstrap over items, {bootstrap} replicates, seed {seed}",
                      "values": intervals},
        "methods": {key: find_metric(kind, key).method if key != "n" else "number of items scored"
                    for key in result.metrics},
    }))
    for line in rows.skipped:
        typer.echo(f"skipped {line}", err=True)
    typer.echo(" ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in result.metrics.items()))
