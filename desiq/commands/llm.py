"""``desiq eval``, ``desiq finetune`` and ``desiq table``: multimodal LLMs on Social-IQ under every DeSIQ condition."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from desiq.commands.listing import condition_help, prompt_help
from desiq.commands.options import Data, Fields, Format, MediaRoot, Schema, Split
from desiq.llm.answers import PARSE_RULES
from desiq.llm.prompts import DEFAULT_PROMPT
from mmsoc.commands import finetune_options as training
from mmsoc.commands import options as flags
from mmsoc.core.cli import commands, note
from mmsoc.core.options import Adapter, Device, Limit, MinClusters, Progress, Revision, Seed, option
from mmsoc.metrics.verdict import MIN_CLUSTERS
from mmsoc.models.revision import pin_revision

app = commands()

Inputs = Annotated[
    str,
    option(
        "--inputs",
        help="What the model is shown: q question, a answer options, "
        "t transcript, v video, s audio (the transcript for a model "
        "without an audio input), joined by '+'.",
    ),
]
NumFrames = Annotated[
    int,
    option(
        "--num-frames",
        min=1,
        help="Frames sampled uniformly from each video (a family that reads a fixed number gets it).",
    ),
]
Fps = Annotated[float | None, option("--fps", min=0.01, help="Sample a frame every 1/FPS seconds instead.")]
VideoAs = Annotated[
    str | None,
    option(
        "--video-as",
        help="How video reaches the model: video (the "
        "processor's video input), frames (several images) "
        "or grid (one tiled image); default: its family's.",
    ),
]
CacheDir = Annotated[
    Path | None,
    option(
        "--cache-dir",
        help="Cache of decoded frames and audio (default: features/ under $MMSOC_CACHE or ~/.cache/mmsoc).",
    ),
]
Prompt = Annotated[
    str,
    option("--prompt", help=prompt_help()),
]
PromptsFile = Annotated[
    Path | None,
    option(
        "--prompts",
        help="JSON/YAML file: prompt name -> fields "
        "(labels, context, question, choices, choice, "
        "instruction, answer, base).",
    ),
]


def _media(num_frames: int, fps: float | None, video_as: str | None, cache_dir: Path | None):
    from mmsoc.models.registry import MediaSettings

    return MediaSettings(num_frames, fps, video_as, str(cache_dir) if cache_dir else None)


EvalOut = Annotated[
    Path,
    option(
        "--out",
        help="Run folder: config.json, predictions.jsonl, metrics.json, "
        "table.md (submission.jsonl for unlabelled questions). A rerun "
        "resumes; a different configuration there is refused.",
    ),
]
Answer = Annotated[
    str,
    option(
        "--answer",
        help="loglik: log-likelihood of each answer (acc and acc_norm); generate: the model writes its answer.",
    ),
]
Parse = Annotated[
    str,
    option(
        "--parse",
        help="How written answers are read: "
        + ", ".join(PARSE_RULES)
        + " (challenge: the official baseline's digit rule).",
    ),
]
Condition = Annotated[str | None, option("--condition", help=condition_help())]
MaxNewTokens = Annotated[int, option("--max-new-tokens", min=1, help="Longest written answer.")]
PrefixCache = Annotated[
    str,
    option(
        "--prefix-cache",
        help="auto: score and generate the questions that share their media from one shared prefix, where "
        "the model's family allows it; off: every request whole.",
    ),
]
PrefixMemory = Annotated[float | None, option("--prefix-memory", min=0.0)]
ApiBase = Annotated[
    str | None,
    option(
        "--api-base",
        help="URL of an OpenAI-compatible server for "
        "--model openai:NAME (loglik needs prompt logprobs, as vLLM "
        "serves them).",
    ),
]


@app.command("eval")
def eval_command(
    model: flags.Model,
    data: Data,
    out: EvalOut,
    revision: Revision = None,
    split: Split = None,
    inputs: Inputs = "q+a+t+v",
    answer: Answer = "loglik",
    parse: Parse = "lenient",
    condition: Condition = None,
    num_frames: NumFrames = 8,
    fps: Fps = None,
    video_as: VideoAs = None,
    batch_size: flags.EvalBatchSize = "8",
    limit: Limit = None,
    seed: Seed = 0,
    adapter: Adapter = None,
    prompt: Prompt = DEFAULT_PROMPT,
    prompts_file: PromptsFile = None,
    max_new_tokens: MaxNewTokens = 32,
    dtype: flags.WeightsDtype = "auto",
    device: Device = "auto",
    device_map: flags.DeviceMap = "none",
    attn_implementation: flags.AttnImplementation = None,
    chat_template: flags.ChatTemplate = None,
    generation_config: flags.GenerationConfig = "neutral",
    prefix_cache: PrefixCache = "auto",
    prefix_memory: PrefixMemory = None,
    max_context: flags.MaxContext = None,
    fit: flags.Fit = "drop",
    log_prompts: flags.LogPrompts = False,
    cache_dir: CacheDir = None,
    api_base: ApiBase = None,
    concurrency: flags.Concurrency = 8,
    request_timeout: flags.RequestTimeout = 600.0,
    retries: flags.Retries = 6,
    deadline: flags.Deadline = None,
    max_response_bytes: flags.MaxResponseBytes = flags.MAX_RESPONSE_BYTES,
    progress: Progress = True,
    min_clusters: MinClusters = MIN_CLUSTERS,
    fields: Fields = None,
    schema: Schema = None,
    media_root: MediaRoot = None,
    format: Format = "auto",
    max_failures: flags.MaxFailures = None,
) -> None:
    """Ask MODEL every question under every DeSIQ condition; accuracy with chance and intervals by video."""
    from desiq.commands.options import field_mapping
    from desiq.llm.evaluate import EvalOptions, evaluate
    from mmsoc.core.batching import parse_batch_size

    model_flags = flags.model_flags(
        dtype, device_map, attn_implementation, chat_template, generation_config, max_context, fit
    )
    server = flags.server_options(api_base, concurrency, request_timeout, retries, deadline, max_response_bytes)
    media = _media(num_frames, fps, video_as, cache_dir)
    sharing = _sharing(prefix_cache, prefix_memory)
    options = EvalOptions(
        split=split,
        inputs=inputs,
        answer=answer,
        parse=parse,
        conditions=condition,
        seed=seed,
        limit=limit,
        batch_size=parse_batch_size(batch_size),
        prompt=prompt,
        prompts_file=prompts_file,
        max_new_tokens=max_new_tokens,
        fit=model_flags.fit,
        log_prompts=log_prompts,
        progress=progress,
        min_clusters=min_clusters,
        mapping=field_mapping(fields, schema),
        media_root=media_root,
        format=format,
        max_failures=max_failures,
        model=model_flags.model_options(device=device, adapter=adapter, media=media, **sharing, **server),
    )
    metrics = evaluate(pin_revision(model, revision), data, out, options)
    if metrics is not None:
        _show(metrics, out, min_clusters)


def _sharing(prefix_cache: str, prefix_memory: float | None) -> dict[str, Any]:
    """The model's shared-prefix options (``--prefix-cache``, ``--prefix-memory``)."""
    checked = flags.choice("--prefix-cache", prefix_cache, ("auto", "off"))
    return {"prefix_cache": checked, "prefix_memory": prefix_memory}


def _show(metrics: dict[str, Any], out: Path, min_clusters: int) -> None:
    """The conditions table (or, for unlabelled questions, what was answered), the work done and the folder."""
    from desiq.llm.table import conditions_table

    if not metrics["labelled"]:
        sub = metrics.get("submission")
        typer.echo(
            f"{metrics['rows']} answers to unlabelled questions: not scored (no answer key)"
            + (
                f"; submission of {sub['questions']} questions ({sub['unanswered']} unanswered) in "
                f"{out / 'submission.jsonl'}"
                if sub
                else ""
            )
        )
    else:
        typer.echo("\n".join(conditions_table(metrics["results"], min_videos=min_clusters)))
    note(work_line(out))
    note(f"wrote {out}")


def work_line(out: Path) -> str:
    """One line of what the model did (runtime.json): rows, prefix passes, tokens, frames, the path taken."""
    import json

    runtime = json.loads((out / "runtime.json").read_text(encoding="utf-8"))
    counts = ("rows_scored", "prefix_passes", "tokens_processed", "frames_encoded")
    shown = ", ".join(f"{key} {runtime[key]:,}" for key in counts if key in runtime)
    return f"work: {shown or 'no model ran'}" + (f" ({runtime['path']}: {runtime['why']})" if "path" in runtime else "")


@app.command("table")
def table_command(
    runs: Annotated[list[Path], typer.Argument(help="`desiq eval` run folders.")],
    out: Annotated[Path | None, option("--out", help="Write the comparison here (markdown).")] = None,
    choices: Annotated[str, option("--choices", help="A4 or A2 (AK: all K options).")] = "A4",
    min_clusters: MinClusters = MIN_CLUSTERS,
    subset: Annotated[
        Path | None,
        option(
            "--subset",
            help="Also each run on a subset beside its full set: the per_item.jsonl of `desiq probe --per-item` "
            "(its blind-proof questions) or a QA file such as `desiq subset` writes.",
        ),
    ] = None,
) -> None:
    """Compare runs (input settings, models, adapters) side by side, each condition with its interval."""
    from desiq.llm.table import comparison_markdown, read_metrics
    from mmsoc.core.io import write_text
    from mmsoc.core.provenance import differences, read_records

    names = [run.name for run in runs]
    names = names if len(set(names)) == len(names) else [str(run) for run in runs]
    text = comparison_markdown([(name, read_metrics(run)) for name, run in zip(names, runs)], choices, min_clusters)
    for warning in differences({name: read_records(run) for name, run in zip(names, runs)}):
        note(f"warning: the runs compared differ in {warning} (provenance.json)")
    if subset is not None:
        from desiq.llm.subset_table import run_subset_markdown

        text += "".join("\n" + run_subset_markdown(n, run, subset, min_clusters) for n, run in zip(names, runs))
    if out is not None:
        write_text(out, text)
        note(f"wrote {out}")
    typer.echo(text)


@app.command("finetune")
def finetune_command(
    model: Annotated[str, option("--model", help="Hub id or folder (or hf:ID) of the base model.")],
    data: Data,
    out: Annotated[Path, option("--out", help="Adapter folder: peft adapter, train_log.jsonl, checkpoints/.")],
    inputs: Inputs = "q+a+t+v",
    split: Split = None,
    limit: Limit = None,
    explanations: training.Explanations = None,
    epochs: Annotated[int, option("--epochs", min=1, help="Passes over the training questions.")] = 1,
    batch_size: Annotated[int, option("--batch-size", min=1, help="Examples per optimizer step.")] = 16,
    micro_batch_size: training.MicroBatchSize = 4,
    learning_rate: training.LearningRate = 2e-4,
    warmup_ratio: training.WarmupRatio = 0.03,
    weight_decay: training.WeightDecay = 0.0,
    max_steps: training.MaxSteps = None,
    save_every: training.SaveEvery = 0,
    resume: training.Resume = False,
    seed: Seed = 0,
    precision: training.Precision = "auto",
    rank: training.LoraRank = 8,
    alpha: training.LoraAlpha = 16,
    dropout: training.LoraDropout = 0.05,
    target_modules: training.TargetModules = "attention",
    lora_mlp: training.LoraMlp = False,
    max_target_tokens: training.MaxTargetTokens = 256,
    prompt: Prompt = DEFAULT_PROMPT,
    prompts_file: PromptsFile = None,
    num_frames: NumFrames = 8,
    fps: Fps = None,
    video_as: VideoAs = None,
    cache_dir: CacheDir = None,
    chat_template: flags.ChatTemplate = None,
    max_context: flags.MaxContext = None,
    fit: flags.Fit = "drop",
    progress: Progress = True,
    format: Format = "auto",
) -> None:
    """LoRA fine-tuning on Social-IQ questions: the target is the answer (letter and text), as evaluated."""
    from desiq.llm.finetune import FinetuneOptions, finetune

    options = FinetuneOptions(
        inputs,
        split,
        limit,
        explanations,
        prompt,
        prompts_file,
        _media(num_frames, fps, video_as, cache_dir),
        progress,
        chat_template=flags.template_file(chat_template)[0],
        max_context=max_context,
        fit=flags.choice("--fit", fit, ("drop", "error")),
        format=format,
    )
    result = finetune(
        model,
        data,
        out,
        options,
        lora=(rank, alpha, dropout, target_modules, lora_mlp),
        train=dict(
            epochs=epochs,
            batch_size=batch_size,
            micro_batch_size=micro_batch_size,
            learning_rate=learning_rate,
            warmup_ratio=warmup_ratio,
            weight_decay=weight_decay,
            max_steps=max_steps,
            save_every=save_every,
            seed=seed,
            precision=precision,
            max_target_tokens=max_target_tokens,
        ),
        resume=resume,
    )
    if result is not None:
        last = f", last loss {result.losses[-1]:.4f}" if result.losses else ""
        typer.echo(f"adapter: {result.adapter_dir} ({result.steps} steps{last})")
