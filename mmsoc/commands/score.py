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
    """Score a predictions file for one task and write OUT/metrics.json and OUT/score_info.json.

    A task that pools datasets (OCR, ids 'hateful_memes/...' and 'memotion/...') is scored on each
    dataset and its metrics are the mean over them, as the paper reports OCR. The package and
    settings behind every metric are printed after the values.
    """
    import numpy as np

    from mmsoc.core.io import write_json
    from mmsoc.metrics.registry import find_metric
    from mmsoc.metrics.stats import percentile_interval, replicate_values, resample_counts
    from mmsoc.report import json_safe
    from mmsoc.tasks import get_task, score_task_averaged
    from mmsoc.tasks.prediction_files import read_prediction_file

    kind = get_task(task).kind
    rows = read_prediction_file(predictions, task)
    metrics, parts = score_task_averaged(task, rows.predictions, rows.references, rows.ids,
                                         text_encoder=text_encoder, fast=no_embeddings)
    pooled = "" in parts
    intervals = {}
    if bootstrap:
        draws = {name: resample_counts(part.metrics["n"], bootstrap, seed) for name, part in parts.items()}
        intervals = {key: percentile_interval(np.mean([replicate_values(part.stats[key], draws[name])
                                                       for name, part in parts.items()], axis=0))
                     for key in next(iter(parts.values())).stats}
    methods = {key: find_metric(kind, key).describe() if key != "n" else "number of items scored" for key in metrics}
    info = {name: {k: v for k, v in part.info.items() if k != "macro_labels"} for name, part in parts.items()}
    write_json(out / "metrics.json", json_safe(metrics))
    write_json(out / "score_info.json", json_safe({
        "task": task, "predictions": predictions.name, "n": len(rows.ids), "skipped_rows": rows.skipped,
        "info": info[""] if pooled else info,
        **({} if pooled else {"averaged_over": list(parts),
                              "per_dataset": {name: part.metrics for name, part in parts.items()}}),
        "intervals": {"method": f"95% percentile bootstrap over items, {bootstrap} replicates, seed {seed}"
                                + ("" if pooled else ", items resampled within each dataset"),
                      "values": intervals},
        "methods": methods,
    }))
    for line in rows.skipped:
        typer.echo(f"skipped {line}", err=True)
    typer.echo(_values(metrics))
    if not pooled:
        typer.echo(f"(mean over the datasets {', '.join(parts)})")
        for name, part in parts.items():
            typer.echo(f"{name}: {_values(part.metrics)}")
    typer.echo("how each metric was computed:")
    for key, method in methods.items():
        typer.echo(f"  {key}: {method}")
    notes = {key: value for part in parts.values() for key, value in part.info.items() if isinstance(value, str)}
    for key, value in notes.items():
        typer.echo(f"  note, {key}: {value}")


def _values(metrics: dict) -> str:
    return " ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in metrics.items())
