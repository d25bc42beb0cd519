"""``mmsoc eval``: zero-shot (or baseline) evaluation of a model on MM-Soc tasks into a run folder."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from mmsoc.backends.base import PAPER_SEEDS
from mmsoc.cli import app

PAPER_SEEDS_TEXT = ",".join(map(str, PAPER_SEEDS))


def _seeds(value: str) -> tuple[int, ...]:
    try:
        seeds = tuple(int(s) for s in value.split(",") if s.strip())
    except ValueError:
        raise typer.BadParameter(f"expected comma-separated integers, got {value!r}", param_hint="--seeds") from None
    if not seeds or len(set(seeds)) != len(seeds):
        raise typer.BadParameter("give one or more distinct seeds", param_hint="--seeds")
    return seeds


@app.command("eval")
def eval_command(
    task: str = typer.Option(..., "--task", help="Task id, comma-separated task ids, or 'all'."),
    model: str = typer.Option(..., "--model", help="Hub id or local folder of an image-text-to-text model, "
                              "'text-baseline' (frozen MiniLM + logistic regression), 'text-baseline:ID_OR_DIR' "
                              "(fine-tune that sequence classifier) or 'random'."),
    out: Path = typer.Option(..., "--out", help="Run folder: predictions.jsonl, config.json, metrics.json. "
                             "Rerunning the same command resumes it."),
    data: str = typer.Option("sample", "--data", help="Data folder in the MM-Soc layout, or 'sample'."),
    split: str = typer.Option("test", "--split", help="Split to evaluate."),
    batch_size: int = typer.Option(8, "--batch-size", min=1, help="Requests per model call (never changes results)."),
    limit: Optional[int] = typer.Option(None, "--limit", min=0, help="Evaluate at most this many items per task."),
    seeds: str = typer.Option(PAPER_SEEDS_TEXT, "--seeds", help="Comma-separated sampling seeds (the paper's: 0,1,2)."),
    greedy: bool = typer.Option(False, "--greedy", help="Greedy decoding, one pass, instead of sampling per seed."),
    max_new_tokens: int = typer.Option(256, "--max-new-tokens", min=1, help="Most tokens generated per response."),
    top_p: float = typer.Option(0.9, "--top-p", min=0.0, max=1.0, help="Nucleus sampling mass (sampling only)."),
    temperature: float = typer.Option(1.0, "--temperature", min=1e-6, help="Sampling temperature (sampling only)."),
    adapter: Optional[str] = typer.Option(None, "--adapter", help="peft (LoRA) adapter folder applied to --model."),
    dtype: str = typer.Option("float32", "--dtype", help="Model weights dtype: float32, bfloat16, float16 or auto."),
    device: str = typer.Option("auto", "--device", help="Device (cpu, cuda, cuda:1, ...); auto = this process's."),
    prompt_version: Optional[str] = typer.Option(None, "--prompt-version", help="Prompt table version (default: latest)."),
    prompts_file: Optional[Path] = typer.Option(None, "--prompts", help="JSON/YAML file of task id -> prompt overrides."),
    fast_metrics: bool = typer.Option(False, "--fast-metrics", help="Skip BERTScore and embedding similarity."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar."),
) -> None:
    """Evaluate MODEL on MM-Soc tasks, logging every prediction and writing metrics.json."""
    from mmsoc.backends.base import GenerationSettings
    from mmsoc.backends.registry import make_backend, needs_images
    from mmsoc.io import InputError
    from mmsoc.runs import RunConfig, RunConfigError, resolve_prompts, run_eval
    from mmsoc.tasks.prompts import load_prompt_overrides
    from mmsoc.tasks.table import parse_task_list

    settings = GenerationSettings(greedy=greedy, max_new_tokens=max_new_tokens, top_p=top_p, temperature=temperature)
    try:
        tasks = parse_task_list(task)
        overrides = load_prompt_overrides(prompts_file, model) if prompts_file else None
        prompts = resolve_prompts(tasks, prompt_version, overrides)
        data_id = data if data == "sample" or data.startswith("hf://") or data == "hub" else str(Path(data).resolve())
        config = RunConfig.create(settings, None if greedy else _seeds(seeds), model=model, tasks=tasks,
                                  data=data_id, split=split, adapter=adapter, dtype=dtype,
                                  prompt_version={t: v for t, (_, v) in prompts.items()})
        metrics = run_eval(config, out, lambda: make_backend(model, data_id, dtype, device, adapter), prompts=prompts,
                           batch_size=batch_size, limit=limit, progress=progress, fast_metrics=fast_metrics,
                           needs_images=needs_images(model))
    except (InputError, RunConfigError, KeyError, OSError, ValueError) as err:
        typer.echo(f"error: {err.args[0] if isinstance(err, KeyError) else err}", err=True)
        raise typer.Exit(2) from None
    if metrics:
        _print_summary(metrics)


def _print_summary(metrics: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    from mmsoc.tasks.table import get_task

    table = Table("task", "n", "success", "strict success", "headline")
    for task, entry in metrics.items():
        headline = get_task(task).headline
        value = entry["metrics"].get(headline)
        table.add_row(task, str(entry["n"]), f"{entry['success_rate']:.3f}", f"{entry['success_rate_strict']:.3f}",
                      f"{headline} {value:.4f}" if value is not None else "-")
    Console().print(table)
