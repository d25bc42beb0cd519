"""``mmsoc score``: score predictions made by any tool against their references."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from mmsoc.core.cli import commands
from mmsoc.core.options import Progress, Seed, option
from mmsoc.runners.console import values_line
from mmsoc.tasks.prediction_files import prediction_format_help

if TYPE_CHECKING:
    from mmsoc.tasks.prediction_files import PredictionFile, PredictionFormat, ScoreRequest

app = commands()


Predictions = Annotated[
    Path,
    option(
        "--predictions",
        help="The predictions: for --format rows a JSONL or CSV "
        "file with id, prediction and reference per row (tagging: a list or a "
        "comma-separated string); see --format for the others.",
    ),
]
ScoreOut = Annotated[
    Path,
    option(
        "--out",
        help="Folder for metrics.json, score_info.json (how they were computed, "
        "intervals, skipped rows) and, for a suite's files, averages.json.",
    ),
]
ScoreTask = Annotated[Optional[str], option("--task", help="Task id (see 'mmsoc tasks'); needed by --format rows.")]
ScoreFormat = Annotated[str, option("--format", help=prediction_format_help())]
GoldData = Annotated[
    Optional[str],
    option(
        "--data",
        help="Where the gold values are, for files of predictions "
        "only (supertweeteval-lines): a folder in the suite's layout or 'sample'.",
    ),
]
Parser = Annotated[
    str,
    option(
        "--parse",
        help="Suite formats: read answers as the suite's official "
        "script does (official) or with the lenient reader (lenient).",
    ),
]
PenalizeMissing = Annotated[
    bool,
    option(
        "--penalize-missing",
        help="socket-tsv: replace each missing answer "
        "by a seeded random wrong class (regression: 0) instead of dropping it.",
    ),
]
TextEncoder = Annotated[
    str,
    option(
        "--text-encoder",
        help="Sentence-transformers model id or folder "
        "for BERTScore and embedding similarity (default: the bundled all-MiniLM-L6-v2).",
    ),
]
Bootstrap = Annotated[
    int, option("--bootstrap", min=0, help="Bootstrap replicates for the 95% intervals in score_info.json (0: none).")
]


@app.command()
def score(
    predictions: Predictions,
    out: ScoreOut,
    task: ScoreTask = None,
    format: ScoreFormat = "rows",
    data: GoldData = None,
    parser: Parser = "official",
    penalize_missing: PenalizeMissing = False,
    text_encoder: TextEncoder = "default",
    fast_metrics: Annotated[bool, option("--fast-metrics")] = False,
    bootstrap: Bootstrap = 1000,
    seed: Seed = 0,
    progress: Progress = True,
) -> None:
    """Score a predictions file and write OUT/metrics.json and OUT/score_info.json.

    A task that pools datasets (OCR, ids 'hateful_memes/...' and 'memotion/...') is scored on each
    dataset and its metrics are the mean over them, as the paper reports OCR. The package and
    settings behind every metric are printed after the values. A suite's files (SocKET TSVs,
    SuperTweetEval prediction lines) hold several tasks: metrics.json has one entry per task and
    averages.json the suite's means (SocKET Table 2, the SuperTweetEval unified mean).
    """
    from mmsoc.core.io import write_json
    from mmsoc.core.progress import track
    from mmsoc.report import json_safe
    from mmsoc.tasks.prediction_files import PARSERS, PREDICTION_FORMATS, ScoreRequest

    if parser not in PARSERS:
        raise typer.BadParameter(f"choose one of {', '.join(PARSERS)}", param_hint="--parse")
    chosen = PREDICTION_FORMATS.get(format)
    request = ScoreRequest(predictions, task, data, parser, penalize_missing)
    chosen.check(request)
    rows = chosen.read(request)
    scored = {
        name: _score_task(name, part, text_encoder, fast_metrics, bootstrap, seed)
        for name, part in track(rows.items(), "score: scoring each task", enabled=progress)
    }
    if chosen.view is None:
        ((name, (metrics, info)),) = scored.items()
        write_json(out / "metrics.json", json_safe(metrics))
        write_json(out / "score_info.json", json_safe({"task": name, "predictions": predictions.name, **info}))
        _echo(info["skipped_rows"], metrics, info, info["notes"])
        return
    _write_suite(out, chosen, request, scored, format)


def _write_suite(
    out: Path,
    chosen: PredictionFormat,
    request: ScoreRequest,
    scored: dict[str, tuple[dict[str, Any], dict[str, Any]]],
    format: str,
) -> None:
    """A suite's files: metrics.json with one entry per task, averages.json, score_info.json, the console lines."""
    from mmsoc.core.io import write_json
    from mmsoc.report import json_safe
    from mmsoc.tasks.registry import short_name

    assert chosen.view is not None
    entries = {name: chosen.view(name, metrics, request) for name, (metrics, _) in scored.items()}
    summary = chosen.averages(entries) if chosen.averages else {}
    write_json(out / "metrics.json", json_safe({short_name(name): entry for name, entry in entries.items()}))
    write_json(out / "averages.json", json_safe(summary))
    write_json(
        out / "score_info.json",
        json_safe(
            {
                "format": format,
                "predictions": request.path.name,
                "parser": request.parser,
                "penalize_missing": request.penalize_missing,
                "tasks": {
                    short_name(name): {"all_metrics": metrics, **info} for name, (metrics, info) in scored.items()
                },
            }
        ),
    )
    for name, entry in entries.items():
        intervals = scored[name][1].get("intervals", {}).get("values")
        typer.echo(f"{short_name(name)}: {values_line(entry, intervals, _undefined(scored[name][1]))}")
    typer.echo("averages: " + " ".join(f"{key}={value}" for key, value in json_safe(summary).items()))
    merged = {
        "methods": {k: v for _, info in scored.values() for k, v in info["methods"].items()},
        "info": {k: v for _, info in scored.values() for k, v in info["info"].items() if isinstance(v, str)},
    }
    skipped = [line for _, info in scored.values() for line in info["skipped_rows"]]
    _echo(skipped, None, merged, [note for _, info in scored.values() for note in info["notes"]])


def _score_task(
    task: str, rows: PredictionFile, text_encoder: str, fast: bool, bootstrap: int, seed: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A task's metrics and how they were computed (intervals, methods, notes, skipped rows)."""
    import numpy as np

    from mmsoc.metrics.registry import find_metric
    from mmsoc.metrics.stats import percentile_interval, replicate_values, resample_counts
    from mmsoc.tasks import get_task, score_task_averaged

    kind = get_task(task).kind
    metrics, parts = score_task_averaged(
        task, rows.predictions, rows.references, rows.ids, text_encoder=text_encoder, fast=fast
    )
    pooled = "" in parts
    intervals = {}
    if bootstrap:
        draws = {name: resample_counts(int(part.metrics["n"]), bootstrap, seed) for name, part in parts.items()}
        intervals = {
            key: percentile_interval(
                np.mean([replicate_values(part.stats[key], draws[name]) for name, part in parts.items()], axis=0)
            )
            for key in next(iter(parts.values())).stats
        }
    methods = {key: find_metric(kind, key).describe() if key != "n" else "number of items scored" for key in metrics}
    info = {name: {k: v for k, v in part.info.items() if k != "macro_labels"} for name, part in parts.items()}
    return metrics, {
        "n": len(rows.ids),
        "skipped_rows": rows.skipped,
        "notes": rows.notes,
        "info": info[""] if pooled else info,
        **(
            {}
            if pooled
            else {"averaged_over": list(parts), "per_dataset": {name: part.metrics for name, part in parts.items()}}
        ),
        "intervals": {
            "method": f"95% percentile bootstrap over items, {bootstrap} replicates, seed {seed}"
            + ("" if pooled else ", items resampled within each dataset"),
            "values": intervals,
        },
        "methods": methods,
    }


def _echo(skipped: list[str], metrics: dict | None, info: dict[str, Any], notes: list[str]) -> None:
    """Skipped rows and the reader's notes (stderr), the flat metrics if given, and how each metric was computed."""
    for line in skipped:
        typer.echo(f"skipped {line}", err=True)
    for note in notes:
        typer.echo(f"note: {note}", err=True)
    if metrics is not None:
        typer.echo(values_line(metrics, info.get("intervals", {}).get("values"), _undefined(info)))
        if "per_dataset" in info:
            typer.echo(f"(mean over the datasets {', '.join(info['per_dataset'])})")
            for name, values in info["per_dataset"].items():
                typer.echo(f"{name}: {values_line(values, None, info['info'][name].get('undefined'))}")
    typer.echo("how each metric was computed:")
    for key, method in info["methods"].items():
        typer.echo(f"  {key}: {method}")
    remarks = {key: value for part in _info_parts(info) for key, value in part.items() if isinstance(value, str)}
    for key, value in remarks.items():
        typer.echo(f"  note, {key}: {value}")


def _info_parts(info: dict[str, Any]) -> list[dict[str, Any]]:
    """The notes of a task's scoring: one part, or one per dataset of a pooled task."""
    return [info["info"]] if "per_dataset" not in info else list(info["info"].values())


def _undefined(info: dict[str, Any]) -> dict[str, str]:
    """Why each undefined metric of a task has no value (in a pooled task: why in one of its datasets)."""
    return {key: why for part in _info_parts(info) for key, why in part.get("undefined", {}).items()}
