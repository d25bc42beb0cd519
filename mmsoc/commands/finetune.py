"""``mmsoc finetune``, ``explain``, ``self-improve`` and ``merge-adapter``: the paper's case studies."""

from __future__ import annotations

from pathlib import Path

import typer

from mmsoc.commands import options
from mmsoc.core.cli import commands
from mmsoc.core.options import Adapter, BatchSize, Device, Dtype, Limit, Progress, Seed, option

app = commands()


def _load(
    tasks: tuple[str, ...], data: str, split: str, limit: int | None, text_length: int | None = None
) -> tuple[list, list[dict]]:
    """Examples of every task, with the loaders' per-item problems as rows (task, id, problem; news texts
    cut to ``text_length`` words, None: the paper's default)."""
    from mmsoc.tasks.data import LoadOptions, load_examples

    options = LoadOptions() if text_length is None else LoadOptions(text_length=text_length)
    examples, problems = [], []
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
    model: str = option(..., "--model", help="Hub id or local folder (or hf:ID) of the image-text-to-text base model."),
    out: Path = option(..., "--out", help="Adapter folder: peft adapter, train_log.jsonl, checkpoints/."),
    tasks: str = option("all", "--task", help="`all` or comma-separated task ids, trained together."),
    data: str = options.DATA,
    split: str = option("train", "--split", help="Split to train on."),
    limit: Limit = None,
    explanations: Path | None = option(
        None,
        "--explanations",
        help="Teacher explanations: a run folder "
        "of 'mmsoc explain' or a JSONL file (id, explanation); targets "
        "become 'ANSWER Explanation: ...'.",
    ),
    epochs: int = option(1, "--epochs", min=1, help="Passes over the training items."),
    batch_size: int = option(16, "--batch-size", min=1, help="Examples per optimizer step (all processes)."),
    micro_batch_size: int = option(
        4, "--micro-batch-size", min=1, help="Examples per forward pass; gradients accumulate up to --batch-size."
    ),
    learning_rate: float = option(2e-4, "--lr", min=0.0, help="Peak learning rate."),
    warmup_ratio: float = option(0.03, "--warmup-ratio", min=0.0, max=1.0, help="Share of steps warming up."),
    weight_decay: float = option(0.0, "--weight-decay", min=0.0, help="AdamW weight decay."),
    max_steps: int | None = option(None, "--max-steps", min=1, help="Stop after this many optimizer steps."),
    save_every: int = option(0, "--save-every", min=0, help="Checkpoint every N optimizer steps (0: never)."),
    resume: bool = option(
        False,
        "--resume",
        help="Continue from the newest checkpoint in --out (the same configuration only; a different one is refused).",
    ),
    seed: Seed = 0,
    precision: str = option("auto", "--precision", help="auto (bf16 where the GPU supports it), bf16 or no."),
    dtype: str = option(
        "auto",
        "--dtype",
        help="Base weights dtype: auto (bfloat16 when training in bf16, else float32), float32, bfloat16 or float16.",
    ),
    device_map: options.DeviceMap = "none",
    attn_implementation: options.AttnImplementation = None,
    rank: int = option(8, "--lora-rank", min=1, help="LoRA rank r."),
    alpha: int = option(16, "--lora-alpha", min=1, help="LoRA scaling alpha."),
    dropout: float = option(0.05, "--lora-dropout", min=0.0, max=1.0, help="Dropout on the LoRA input."),
    target_modules: str = option(
        "attention",
        "--target-modules",
        help="'attention' (the language model's attention projections, by the names its architecture uses) "
        "or comma-separated names of language-model linear layers to adapt (lm_head included when named).",
    ),
    lora_mlp: bool = option(False, "--lora-mlp", help="Adapt the language model's MLP projections too."),
    max_target_tokens: int = option(256, "--max-target-tokens", min=2, help="Longest target kept (tokens)."),
    prompt_version: str | None = options.PROMPT_VERSION,
    prompts_file: Path | None = options.PROMPTS_FILE,
    progress: Progress = True,
    text_length: options.TextLength = 128,
) -> None:
    """LoRA fine-tuning of MODEL on one or more tasks at once (answer tokens only carry the loss)."""
    from mmsoc.models.registry import ModelOptions, checkpoint_of

    checkpoint = checkpoint_of(model, "mmsoc finetune trains")  # before the training stack is imported
    from mmsoc.core.distributed import process_state
    from mmsoc.core.io import write_jsonl
    from mmsoc.models.inputs import ModelInputs
    from mmsoc.models.loading import check_attn_implementation, load_hf_model
    from mmsoc.runners.finetune.data import build_training_set
    from mmsoc.runners.finetune.explanations import read_explanations
    from mmsoc.runners.finetune.lora import layer_names
    from mmsoc.runners.finetune.train import (
        LoraSettings,
        TrainSettings,
        check_out_dir,
        resolve_precision,
        run_identity,
        train_lora,
    )
    from mmsoc.runners.fitting import counter_of

    lora = LoraSettings(rank, alpha, dropout, layer_names(target_modules), lora_mlp)
    settings = TrainSettings(
        epochs,
        batch_size,
        micro_batch_size,
        learning_rate,
        warmup_ratio,
        weight_decay,
        max_steps=max_steps,
        save_every=save_every,
        seed=seed,
        precision=precision,
        max_target_tokens=max_target_tokens,
    )
    task_ids = options.task_list(tasks, data)
    prompts = _prompts(task_ids, model, prompt_version, prompts_file)
    examples, problems = _load(task_ids, data, split, limit, text_length)
    table = read_explanations(explanations) if explanations else None
    inputs = ModelInputs.from_files(checkpoint, ModelOptions())  # the prompts fitted as evaluation fits them
    training = build_training_set(examples, {t: text for t, (text, _) in prompts.items()}, table, counter_of(inputs))
    meta = {
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
    weights, spread = _training_dtype(dtype, resolve_precision(precision)), options.device_map_of(device_map)
    check_attn_implementation(attn_implementation)
    meta.update(dtype=weights, attn_implementation=attn_implementation)
    check_out_dir(out, resume, run_identity(lora, settings, training.items, meta))  # before loading the model
    state = process_state()
    base, processor, family = load_hf_model(
        checkpoint, weights, device_map=spread, attn_implementation=attn_implementation
    )
    result = train_lora(
        base, processor, family, training.items, out, lora, settings, resume=resume, meta=meta, progress=progress
    )
    if not state.is_main_process:
        return
    if problems or training.problems:
        write_jsonl(
            out / "problems.jsonl",
            problems + [{"task": p["task"], "id": p["id"], "problem": p["reason"]} for p in training.problems],
        )
    last = f", last loss {result.losses[-1]:.4f}" if result.losses else ""
    typer.echo(f"adapter: {result.adapter_dir} ({result.steps} steps on {len(training.items)} items{last})")


def _training_dtype(dtype: str, precision: str) -> str:
    """The base weights' dtype: as given, or for ``auto`` bfloat16 when training in bf16 (else float32)."""
    from mmsoc.models.loading import DTYPES

    if options.choice("--dtype", dtype, ("auto", *DTYPES)) != "auto":
        return dtype
    return "bfloat16" if precision == "bf16" else "float32"


@app.command()
def explain(
    model: options.Model = ...,
    task: str = option(..., "--task", help="Task id or comma-separated ids with labels to explain."),
    out: Path = option(
        ...,
        "--out",
        help="Run folder: predictions.jsonl (one explanation per item, for "
        "'mmsoc finetune --explanations'), config.json, problems.jsonl. Rerunning the same "
        "command resumes it; a different configuration is refused.",
    ),
    data: str = options.DATA,
    split: str = option("train", "--split", help="Split whose gold labels are explained."),
    limit: Limit = None,
    batch_size: BatchSize = 8,
    seed: Seed = 0,
    greedy: bool = option(True, "--greedy/--sample", help="Greedy decoding (default) or nucleus sampling."),
    max_new_tokens: int = options.MAX_NEW_TOKENS,
    top_p: float = options.TOP_P,
    temperature: float = options.TEMPERATURE,
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


@app.command("self-improve")
def self_improve(
    task: str = option(..., "--task", help="Task id."),
    model: options.Model = ...,
    out: Path = option(
        ...,
        "--out",
        help="Run folder: predictions.jsonl (one row per item and round), "
        "config.json, metrics.json, problems.jsonl, similarity.png. Rerunning the same command "
        "resumes it; a different configuration is refused.",
    ),
    rounds: int = option(6, "--rounds", min=1, help="Answer rounds (the paper's: 6)."),
    data: str = options.DATA,
    split: str = option("test", "--split", help="Split to use."),
    limit: Limit = None,
    batch_size: BatchSize = 8,
    seed: Seed = 0,
    greedy: bool = option(False, "--greedy/--sample"),
    max_new_tokens: int = options.MAX_NEW_TOKENS,
    top_p: float = options.TOP_P,
    temperature: float = options.TEMPERATURE,
    text_encoder: str | None = option(
        None, "--text-encoder", help="Model for BERTScore and sentence cosine (default: the bundled all-MiniLM-L6-v2)."
    ),
    adapter: Adapter = None,
    dtype: options.WeightsDtype = "auto",
    device: Device = "auto",
    prompt_version: str | None = options.PROMPT_VERSION,
    prompts_file: Path | None = options.PROMPTS_FILE,
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
    adapter: Path = option(..., "--adapter", help="peft adapter folder (from 'mmsoc finetune')."),
    out: Path = option(..., "--out", help="New folder for the standalone merged model."),
    model: str | None = option(
        None, "--model", help="Base model: hub id or folder, or hf:ID (default: the one the adapter records)."
    ),
    dtype: Dtype = "float32",
) -> None:
    """Fold a LoRA adapter into its base model and save a standalone model folder."""
    from mmsoc.models.registry import checkpoint_of

    base = checkpoint_of(model, "mmsoc merge-adapter merges an adapter into") if model is not None else None
    from mmsoc.runners.finetune.merge import merge_adapter

    folder = merge_adapter(adapter, out, base, dtype)
    typer.echo(f"merged model: {folder}")
