"""``mmsoc eval``: zero-shot (or baseline) evaluation of a model on MM-Soc tasks into a run folder."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from mmsoc.commands import options
from mmsoc.core.cli import commands
from mmsoc.core.options import Adapter, Device, Limit, Progress, Revision, option
from mmsoc.models.base import PAPER_SEEDS

if TYPE_CHECKING:
    from mmsoc.models.base import GenerationSettings
    from mmsoc.runners.config import RunConfig

app = commands()

PAPER_SEEDS_TEXT = ",".join(map(str, PAPER_SEEDS))


def _seeds(value: str) -> tuple[int, ...]:
    try:
        seeds = tuple(int(s) for s in value.split(",") if s.strip())
    except ValueError:
        raise typer.BadParameter(f"expected comma-separated integers, got {value!r}", param_hint="--seeds") from None
    if not seeds or len(set(seeds)) != len(seeds):
        raise typer.BadParameter("give one or more distinct seeds", param_hint="--seeds")
    return seeds


RunOut = Annotated[
    Path,
    option(
        "--out",
        help="Run folder: predictions.jsonl, config.json, metrics.json. Rerunning the same command resumes it.",
    ),
]
Split = Annotated[str, option("--split")]
Seeds = Annotated[str, option("--seeds", help="Comma-separated sampling seeds (the paper's: 0,1,2).")]
Greedy = Annotated[bool, option("--greedy/--sample")]
FastMetrics = Annotated[bool, option("--fast-metrics")]
ApiBase = Annotated[
    Optional[str],
    option(
        "--api-base",
        help="URL of an OpenAI-compatible server for "
        "--model openai:NAME, e.g. http://localhost:8000/v1 (vLLM, SGLang); "
        "the key comes from $MMSOC_API_KEY or $OPENAI_API_KEY.",
    ),
]
Threads = Annotated[
    Optional[int],
    option(
        "--threads",
        min=1,
        help="torch threads per process (default: "
        "$OMP_NUM_THREADS if set, else the CPUs this process may use, shared "
        "among the run's processes on this machine, at most 8); in runtime.json.",
    ),
]


@app.command("eval")
def eval_command(
    *,
    task: options.Task,
    suite: options.Suite = "mmsoc",
    model: options.Model,
    out: RunOut,
    revision: Revision = None,
    data: options.Data = "sample",
    split: Split = "test",
    batch_size: options.EvalBatchSize = "8",
    limit: Limit = None,
    seeds: Seeds = PAPER_SEEDS_TEXT,
    greedy: Greedy = False,
    max_new_tokens: options.MaxNewTokens = 256,
    top_p: options.TopP = 0.9,
    temperature: options.Temperature = 1.0,
    adapter: Adapter = None,
    dtype: options.WeightsDtype = "auto",
    device: Device = "auto",
    device_map: options.DeviceMap = "none",
    attn_implementation: options.AttnImplementation = None,
    chat_template: options.ChatTemplate = None,
    generation_config: options.GenerationConfig = "neutral",
    max_context: options.MaxContext = None,
    fit: options.Fit = "drop",
    log_prompts: options.LogPrompts = False,
    prompt_version: options.PromptVersion = None,
    prompts_file: options.PromptsFile = None,
    fast_metrics: FastMetrics = False,
    progress: Progress = True,
    api_base: ApiBase = None,
    concurrency: options.Concurrency = 8,
    request_timeout: options.RequestTimeout = 600.0,
    retries: options.Retries = 6,
    deadline: options.Deadline = None,
    max_response_bytes: options.MaxResponseBytes = options.MAX_RESPONSE_BYTES,
    text_length: options.TextLength = 128,
    threads: Threads = None,
    max_failures: options.MaxFailures = None,
) -> None:
    """Evaluate MODEL on the tasks of a suite (MM-Soc by default), logging every prediction and writing metrics.json."""
    from mmsoc.core.batching import parse_batch_size
    from mmsoc.models.base import GenerationSettings
    from mmsoc.models.registry import make_model, modalities
    from mmsoc.models.revision import pin_revision
    from mmsoc.runners.eval import resolve_prompts, run_eval
    from mmsoc.runners.failures import MaxFailures
    from mmsoc.tasks.prompts import load_prompt_overrides

    failures = MaxFailures.parse(max_failures)
    model = pin_revision(model, revision)
    settings = GenerationSettings(greedy=greedy, max_new_tokens=max_new_tokens, top_p=top_p, temperature=temperature)
    flags = options.model_flags(
        dtype, device_map, attn_implementation, chat_template, generation_config, max_context, fit
    )
    tasks = options.task_list(task, data, suite)
    overrides = load_prompt_overrides(prompts_file, model) if prompts_file else None
    prompts = resolve_prompts(tasks, prompt_version, overrides)
    data_id = data if data == "sample" or data.startswith("hf://") or data == "hub" else str(Path(data).resolve())
    seed_list = None if greedy else _seeds(seeds)
    config = _run_config(
        settings, seed_list, flags, model, tasks, data_id, split, adapter, prompts, text_length, api_base
    )
    server = options.server_options(api_base, concurrency, request_timeout, retries, deadline, max_response_bytes)
    model_options = flags.model_options(data=data_id, device=device, adapter=adapter, **server)
    metrics = run_eval(
        config,
        out,
        lambda: make_model(model, model_options),
        prompts=prompts,
        batch_size=parse_batch_size(batch_size),
        limit=limit,
        progress=progress,
        fast_metrics=fast_metrics,
        modalities=modalities(model),
        threads=threads,
        log_prompts=log_prompts,
        max_failures=failures,
    )
    if metrics:
        from mmsoc.runners.console import print_eval_summary

        print_eval_summary(metrics)


def _run_config(
    settings: GenerationSettings,
    seeds: tuple[int, ...] | None,
    flags: options.ModelFlags,
    model: str,
    tasks: tuple[str, ...],
    data_id: str,
    split: str,
    adapter: str | None,
    prompts: dict[str, tuple[str, str]],
    text_length: int,
    api_base: str | None,
) -> RunConfig:
    """The run's identity (config.json): what is asked, of which model, with which settings."""
    from dataclasses import asdict

    from mmsoc.models.inputs import describe_model
    from mmsoc.runners.config import RunConfig

    return RunConfig.create(
        settings,
        seeds,
        model=model,
        tasks=tasks,
        data=data_id,
        split=split,
        adapter=adapter,
        prompt_version={t: v for t, (_, v) in prompts.items()},
        text_length=text_length,
        **asdict(flags),
        **describe_model(model, settings, flags.chat_template, flags.generation_config, api_base),
    )
