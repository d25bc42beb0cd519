"""``mmsoc finetune``, ``explain``, ``self-improve`` and ``merge-adapter``: the paper's case studies."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from mmsoc.commands import options
from mmsoc.commands.finetune_options import (
    AdapterOut,
    BaseDtype,
    BaseModel,
    Epochs,
    Explanations,
    LearningRate,
    LoraAlpha,
    LoraDropout,
    LoraMlp,
    LoraRank,
    MaxSteps,
    MaxTargetTokens,
    MicroBatchSize,
    Precision,
    Resume,
    SaveEvery,
    TargetModules,
    TrainBatchSize,
    TrainSplit,
    TrainTasks,
    WarmupRatio,
    WeightDecay,
)
from mmsoc.core.cli import commands
from mmsoc.core.options import Adapter, BatchSize, Device, Dtype, Limit, Progress, Seed, option

if TYPE_CHECKING:
    from mmsoc.core.records import Example
    from mmsoc.models.inputs import ModelInputs
    from mmsoc.runners.finetune.data import TrainingSet
    from mmsoc.runners.finetune.lora_training import LoraSettings

app = commands()


def _load(
    tasks: tuple[str, ...], data: str, split: str, limit: int | None, text_length: int | None = None
) -> tuple[list[Example], list[dict[str, str]]]:
    """Examples of every task, with the loaders' per-item problems as rows (task, id, problem; news texts
    cut to ``text_length`` words, None: the paper's default)."""
    from mmsoc.tasks.data import LoadOptions, load_examples

    options = LoadOptions() if text_length is None else LoadOptions(text_length=text_length)
    examples: list[Example] = []
    problems: list[dict[str, str]] = []
    for task in tasks:
        loaded = load_examples(task, data, split=split, limit=limit, options=options)
        examples += loaded.examples
        problems += [{"task": task, "id": p.id, "problem": str(p)} for p in loaded.problems]
    return examples, problems


def _prompts(tasks: tuple[str, ...], model: str, version: str | None, prompts_file: Path | None) -> dict:
    from mmsoc.runners.eval import resolve_prompts
    from mmsoc.tasks.prompts import load_prompt_overrides

    return resolve_prompts(tasks, version, load_prompt_overrides(prompts_file, model) if prompts_file else None)


def _settings(greedy: bool, max_new_tokens: int, top_p: float, temperature: float):
    from mmsoc.models.base import GenerationSettings

    return GenerationSettings(greedy=greedy, max_new_tokens=max_new_tokens, top_p=top_p, temperature=temperature)


@app.command()
def finetune(
    model: BaseModel,
    out: AdapterOut,
    tasks: TrainTasks = "all",
    data: options.Data = "sample",
    split: TrainSplit = "train",
    limit: Limit = None,
    explanations: Explanations = None,
    epochs: Epochs = 1,
    batch_size: TrainBatchSize = 16,
    micro_batch_size: MicroBatchSize = 4,
    learning_rate: LearningRate = 2e-4,
    warmup_ratio: WarmupRatio = 0.03,
    weight_decay: WeightDecay = 0.0,
    max_steps: MaxSteps = None,
    save_every: SaveEvery = 0,
    resume: Resume = False,
    seed: Seed = 0,
    precision: Precision = "auto",
    dtype: BaseDtype = "auto",
    device_map: options.DeviceMap = "none",
    attn_implementation: options.AttnImplementation = None,
    rank: LoraRank = 8,
    alpha: LoraAlpha = 16,
    dropout: LoraDropout = 0.05,
    target_modules: TargetModules = "attention",
    lora_mlp: LoraMlp = False,
    max_target_tokens: MaxTargetTokens = 256,
    prompt_version: options.PromptVersion = None,
    prompts_file: options.PromptsFile = None,
    progress: Progress = True,
    text_length: options.TextLength = 128,
) -> None:
    """LoRA fine-tuning of MODEL on one or more tasks at once (answer tokens only carry the loss)."""
    from mmsoc.models.registry import checkpoint_of

    checkpoint = checkpoint_of(model, "mmsoc finetune trains")  # before the training stack is imported
    from mmsoc.core.distributed import process_state
    from mmsoc.models.loading import check_attn_implementation, load_hf_model
    from mmsoc.runners.finetune import lora_training as training_run

    lora = _lora_settings(rank, alpha, dropout, target_modules, lora_mlp)
    settings = training_run.TrainSettings(epochs, batch_size, micro_batch_size, learning_rate, warmup_ratio)
    settings = replace(settings, weight_decay=weight_decay, max_steps=max_steps, save_every=save_every, seed=seed)
    settings = replace(settings, precision=precision, max_target_tokens=max_target_tokens)
    task_ids = options.task_list(tasks, data)
    prompts = _prompts(task_ids, model, prompt_version, prompts_file)
    examples, problems = _load(task_ids, data, split, limit, text_length)
    training, inputs = _training_set(checkpoint, examples, prompts, explanations)
    meta = _training_meta(task_ids, data, split, limit, text_length, prompts, explanations, problems, training, inputs)
    weights = _training_dtype(dtype, training_run.resolve_precision(precision))
    spread = options.device_map_of(device_map)
    check_attn_implementation(attn_implementation)
    meta.update(dtype=weights, attn_implementation=attn_implementation)
    identity = training_run.run_identity(lora, settings, training.items, meta)
    training_run.check_out_dir(out, resume, identity)  # before loading the model
    state = process_state()
    base, processor, family = load_hf_model(
        checkpoint, weights, device_map=spread, attn_implementation=attn_implementation
    )
    result = training_run.train_lora(
        base, processor, family, training.items, out, lora, settings, resume=resume, meta=meta, progress=progress
    )
    if not state.is_main_process:
        return
    _write_problems(out, problems, training.problems)
    last = f", last loss {result.losses[-1]:.4f}" if result.losses else ""
    typer.echo(f"adapter: {result.adapter_dir} ({result.steps} steps on {len(training.items)} items{last})")


def _training_set(
    checkpoint: str, examples: list[Example], prompts: dict[str, tuple[str, str]], explanations: Path | None
) -> tuple[TrainingSet, ModelInputs]:
    """The training pairs of ``examples`` (targets with the teacher's explanations where given) and the
    checkpoint's inputs, which fit the prompts as evaluation fits them."""
    from mmsoc.models.inputs import ModelInputs
    from mmsoc.models.registry import ModelOptions
    from mmsoc.runners.finetune.data import build_training_set
    from mmsoc.runners.finetune.explanations import read_explanations
    from mmsoc.runners.fitting import counter_of

    table = read_explanations(explanations) if explanations else None
    inputs = ModelInputs.from_files(checkpoint, ModelOptions())
    training = build_training_set(examples, {t: text for t, (text, _) in prompts.items()}, table, counter_of(inputs))
    return training, inputs


def _lora_settings(rank: int, alpha: int, dropout: float, target_modules: str, mlp: bool) -> LoraSettings:
    """The adapter's shape from its flags (``--target-modules`` as layer names)."""
    from mmsoc.runners.finetune.lora_targets import layer_names
    from mmsoc.runners.finetune.lora_training import LoraSettings

    return LoraSettings(rank, alpha, dropout, layer_names(target_modules), mlp)


def _training_meta(
    task_ids: tuple[str, ...],
    data: str,
    split: str,
    limit: int | None,
    text_length: int,
    prompts: dict[str, tuple[str, str]],
    explanations: Path | None,
    problems: list[dict[str, str]],
    training: TrainingSet,
    inputs: ModelInputs,
) -> dict[str, Any]:
    """What the adapter was trained on (its train_config.json and run identity), before the weights' settings."""
    return {
        "tasks": list(task_ids),
        "data": data,
        "split": split,
        "limit": limit,
        "text_length": text_length,
        "prompt_version": {t: v for t, (_, v) in prompts.items()},
        "explanations": str(explanations) if explanations else None,
        "explained": sum(item.explained for item in training.items),
        "skipped": len(problems) + len(training.problems),
        "text_tokens_dropped": training.text_tokens_dropped,
        "max_prompt_tokens": training.max_prompt_tokens,
        "prompt_format": inputs.format.describe(),
        "context": {"max_context": inputs.context_length, "fit": "drop"},
    }


def _write_problems(out: Path, problems: list[dict[str, str]], skipped: list[dict[str, str]]) -> None:
    """problems.jsonl: the loaders' per-item problems and the items the training set left out, if any."""
    from mmsoc.core.io import write_jsonl

    if problems or skipped:
        write_jsonl(
            out / "problems.jsonl",
            problems + [{"task": p["task"], "id": p["id"], "problem": p["reason"]} for p in skipped],
        )


def _training_dtype(dtype: str, precision: str) -> str:
    """The base weights' dtype: as given, or for ``auto`` bfloat16 when training in bf16 (else float32)."""
    from mmsoc.models.loading import DTYPES

    if options.choice("--dtype", dtype, ("auto", *DTYPES)) != "auto":
        return dtype
    return "bfloat16" if precision == "bf16" else "float32"


ExplainTask = Annotated[str, option("--task", help="Task id or comma-separated ids with labels to explain.")]
ExplainOut = Annotated[
    Path,
    option(
        "--out",
        help="Run folder: predictions.jsonl (one explanation per item, for "
        "'mmsoc finetune --explanations'), config.json, problems.jsonl. Rerunning the same "
        "command resumes it; a different configuration is refused.",
    ),
]


@app.command()
def explain(
    *,
    model: options.Model,
    task: ExplainTask,
    out: ExplainOut,
    data: options.Data = "sample",
    split: Annotated[str, option("--split", help="Split whose gold labels are explained.")] = "train",
    limit: Limit = None,
    batch_size: BatchSize = 8,
    seed: Seed = 0,
    greedy: Annotated[bool, option("--greedy/--sample", help="Greedy decoding (default) or nucleus sampling.")] = True,
    max_new_tokens: options.MaxNewTokens = 256,
    top_p: options.TopP = 0.9,
    temperature: options.Temperature = 1.0,
    adapter: Adapter = None,
    dtype: options.WeightsDtype = "auto",
    device: Device = "auto",
    progress: Progress = True,
) -> None:
    """Write teacher explanations of the gold labels with the label-conditioned "why" prompts."""
    from mmsoc.models.registry import ModelOptions, make_model
    from mmsoc.runners.finetune.explain import write_explanations

    task_ids = options.task_list(task, data)
    examples, problems = _load(task_ids, data, split, limit)
    backend = make_model(model, ModelOptions(data, dtype, device, adapter))
    meta = {"model": model, "adapter": adapter, "tasks": list(task_ids), "data": data, "split": split, "dtype": dtype}
    summary = write_explanations(
        backend,
        examples,
        out,
        _settings(greedy, max_new_tokens, top_p, temperature),
        seed,
        batch_size,
        progress,
        meta,
        problems,
    )
    typer.echo(
        f"{out}: {summary.written} written, {summary.already_done} already there, {len(summary.problems)} skipped"
    )


SelfImproveOut = Annotated[
    Path,
    option(
        "--out",
        help="Run folder: predictions.jsonl (one row per item and round), "
        "config.json, metrics.json, problems.jsonl, similarity.png. Rerunning the same command "
        "resumes it; a different configuration is refused.",
    ),
]
SimilarityEncoder = Annotated[
    str | None,
    option("--text-encoder", help="Model for BERTScore and sentence cosine (default: the bundled all-MiniLM-L6-v2)."),
]


@app.command("self-improve")
def self_improve(
    *,
    task: Annotated[str, option("--task", help="Task id.")],
    model: options.Model,
    out: SelfImproveOut,
    rounds: Annotated[int, option("--rounds", min=1, help="Answer rounds (the paper's: 6).")] = 6,
    data: options.Data = "sample",
    split: Annotated[str, option("--split", help="Split to use.")] = "test",
    limit: Limit = None,
    batch_size: BatchSize = 8,
    seed: Seed = 0,
    greedy: Annotated[bool, option("--greedy/--sample")] = False,
    max_new_tokens: options.MaxNewTokens = 256,
    top_p: options.TopP = 0.9,
    temperature: options.Temperature = 1.0,
    text_encoder: SimilarityEncoder = None,
    adapter: Adapter = None,
    dtype: options.WeightsDtype = "auto",
    device: Device = "auto",
    prompt_version: options.PromptVersion = None,
    prompts_file: options.PromptsFile = None,
    progress: Progress = True,
) -> None:
    """Ask MODEL to improve its own answer over several rounds; score how answers drift."""
    from mmsoc.models.registry import ModelOptions, make_model
    from mmsoc.runners.finetune.self_improve import run_self_improve

    (task_id,) = options.task_list(task, data)
    ((instruction, version),) = _prompts((task_id,), model, prompt_version, prompts_file).values()
    examples, problems = _load((task_id,), data, split, limit)
    backend = make_model(model, ModelOptions(data, dtype, device, adapter))
    metrics = run_self_improve(
        backend,
        examples,
        instruction,
        version,
        out,
        rounds,
        _settings(greedy, max_new_tokens, top_p, temperature),
        seed,
        batch_size,
        text_encoder,
        meta={"model": model, "adapter": adapter, "data": data, "split": split, "limit": limit, "dtype": dtype},
        progress=progress,
        problems=problems,
    )
    for row in metrics["adjacent"]:
        typer.echo(
            f"rounds {row['from']}->{row['to']}: "
            + ", ".join(f"{k} {row[k]:.3f}" for k in ("bertscore", "sentence_cosine", "bigram"))
        )


@app.command("merge-adapter")
def merge_adapter_command(
    adapter: Annotated[Path, option("--adapter", help="peft adapter folder (from 'mmsoc finetune').")],
    out: Annotated[Path, option("--out", help="New folder for the standalone merged model.")],
    model: Annotated[
        str | None,
        option("--model", help="Base model: hub id or folder, or hf:ID (default: the one the adapter records)."),
    ] = None,
    dtype: Dtype = "float32",
) -> None:
    """Fold a LoRA adapter into its base model and save a standalone model folder."""
    from mmsoc.models.registry import checkpoint_of

    base = checkpoint_of(model, "mmsoc merge-adapter merges an adapter into") if model is not None else None
    from mmsoc.runners.finetune.merge import merge_adapter

    folder = merge_adapter(adapter, out, base, dtype)
    typer.echo(f"merged model: {folder}")
