"""``desiq fusion train``, ``desiq fusion eval`` and ``desiq cache info|clear``: the T5-fusion model from the command
line."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from desiq.commands.options import (
    CacheDir,
    Data,
    Fields,
    Format,
    OptionPerturbKind,
    Schema,
    Split,
    config_of,
    field_mapping,
    perturbation_help,
)
from desiq.fusion.architecture import AUDIO_ENCODER, DEFAULTS, TEXT_ENCODER, Architecture
from mmsoc.core.cli import commands, note
from mmsoc.core.io import UsageError
from mmsoc.core.options import BatchSize, Progress, Seed, option

app = commands()
fusion_app = typer.Typer(help="The T5-fusion model: train it, score questions with it.", no_args_is_help=True)
app.add_typer(fusion_app, name="fusion")
cache_app = typer.Typer(help="The on-disk feature cache of the media encoders.", no_args_is_help=True)
app.add_typer(cache_app, name="cache")

DEV_FRACTION = 0.2
"""Share of a single QA file's videos held out as dev questions by ``desiq fusion train``."""


@fusion_app.command("train")
def train(
    data: Annotated[
        Path,
        option(
            "--data",
            help="Social-IQ folder: trains on qa/qa_train.json with early stopping on "
            "qa/qa_val.json, media by vid_name. Or a single QA file (inputs "
            "without media; any MCQA file with K options, see --fields): a seeded fifth of its videos "
            "(groups) is the dev set.",
        ),
    ],
    backbone: Annotated[
        str,
        option(
            "--backbone",
            help="T5 checkpoint id (t5-small) or local folder with the checkpoint "
            "and tokenizer, e.g. from `hf download google-t5/t5-small "
            "--local-dir DIR`; its encoder is used.",
        ),
    ],
    out: Annotated[Path, option("--out", help="Model folder to write (backbone/, head, config, metrics.json).")],
    architecture: Annotated[
        Architecture,
        option(
            "--architecture",
            help="paper: the official DeSIQ Concat model (frozen BERT features of q, a and transcript through "
            "Linear(768->512), frozen ViT frames and wav2vec2 audio, [q|t|v|s|a] through T5, segment ends, "
            "sigmoid MLP head; its defects fixed, see desiq/fusion/architecture.py); ours: T5 fine-tuned over "
            "the q/a tokens with pooled, masked media.",
        ),
    ] = Architecture.paper,
    inputs: Annotated[
        str,
        option(
            "--inputs",
            help="Input setting: q question, a answer, t transcript, v video, "
            "s audio, joined by '+'; 'a' alone is the paper's NCAQ (options "
            "only: no question, no media).",
        ),
    ] = "q+a+t+v+s",
    choices: Annotated[
        str,
        option(
            "--choices",
            help="AK (or its name: A4 for Social-IQ, A3 for three options): cross-entropy over all K options; "
            "A2: over (correct, incorrect) pairs.",
        ),
    ] = "AK",
    epochs: Annotated[
        int | None, option("--epochs", help="Maximum training epochs (default 40 paper, 10 ours).")
    ] = None,
    seed: Seed = 0,
    lr: Annotated[float, option("--lr", help="AdamW learning rate.")] = 1e-4,
    batch_size: Annotated[
        int | None, option("--batch-size", help="Questions per training step per process (default 1 paper, 8 ours).")
    ] = None,
    patience: Annotated[
        int | None,
        option(
            "--patience",
            help="paper: stop after more than this many dev decreases in a "
            "row (default 4, the official rule); ours: after this many "
            "epochs without a better dev score (default 3).",
        ),
    ] = None,
    video_encoder: Annotated[
        str | None,
        option(
            "--video-encoder",
            help="paper: transformers ViT id or folder (default "
            f"{DEFAULTS[Architecture.paper].video_encoder}); ours: "
            "open_clip architecture, open_clip folder, or hf:ID / "
            "transformers CLIP folder (default ViT-B-32).",
        ),
    ] = None,
    video_pretrained: Annotated[
        str,
        option(
            "--video-pretrained", help="ours: open_clip pretrained tag or checkpoint file ('none': random weights)."
        ),
    ] = "openai",
    num_frames: Annotated[
        int | None,
        option(
            "--num-frames",
            help="paper: the first N frames at one per second (default 60); "
            "ours: N frames sampled uniformly (default 8).",
        ),
    ] = None,
    audio_encoder: Annotated[
        str,
        option(
            "--audio-encoder",
            help="A transformers speech encoder id or folder (wav2vec2-style, "
            f"default {AUDIO_ENCODER} as the paper), or 'logmel' (log-mel "
            "features, no pretrained model).",
        ),
    ] = AUDIO_ENCODER,
    text_encoder: Annotated[
        str | None,
        option(
            "--text-encoder",
            help="paper: the frozen BERT-style encoder of question, "
            f"options and transcript (default {TEXT_ENCODER}); ours: "
            "the sentence encoder of transcript cues (default: the "
            "shipped all-MiniLM-L6-v2).",
        ),
    ] = None,
    max_tokens: Annotated[
        int, option("--max-tokens", help="ours: feature positions per modality (longer sequences are average-pooled).")
    ] = 16,
    cache_dir: CacheDir = None,
    fields: Fields = None,
    schema: Schema = None,
    format: Format = "auto",
    progress: Progress = True,
) -> None:
    """Train the T5-fusion model with early stopping on the dev questions; write the model and metrics.json."""
    from desiq.data import hold_out_videos, qa_data, resolve_data
    from desiq.formats import read_note
    from desiq.fusion import FusionConfig, default_encoders, fusion_accelerator, train_fusion
    from desiq.fusion.paper_media import paper_encoders
    from desiq.fusion.runner import chance, check_model_folder
    from desiq.records import configs
    from mmsoc.media import FeatureCache

    data = resolve_data(data)
    if data.is_dir():
        train_data = qa_data(data, "train", format=format)
        reading = train_data.reading()
        train_items, dev_items = reading.items, qa_data(data, "val", format=format).items()
    else:
        train_data = qa_data(data, mapping=field_mapping(fields, schema), format=format)
        reading = train_data.reading()
        train_items, dev_items = hold_out_videos(reading.items, DEV_FRACTION, seed)
    note(read_note(reading))
    train_data.require_media(inputs)
    chosen = config_of(choices, train_items)
    check_model_folder(out)  # a folder that cannot take the model fails now, not after training
    d = DEFAULTS[architecture]
    if architecture is Architecture.paper:
        encoders = paper_encoders(
            text_encoder or d.text_encoder, video_encoder or d.video_encoder, num_frames or d.num_frames, audio_encoder
        )
    else:
        encoders = default_encoders(
            video_encoder or d.video_encoder,
            None if video_pretrained.lower() == "none" else video_pretrained,
            num_frames or d.num_frames,
            audio_encoder,
            text_encoder or d.text_encoder,
        )
    cfg = FusionConfig(
        backbone,
        inputs,
        chosen,
        encoders,
        max_tokens=max_tokens,
        lr=lr,
        epochs=epochs or d.epochs,
        batch_size=batch_size or d.batch_size,
        patience=d.patience if patience is None else patience,
        seed=seed,
        architecture=architecture.value,
        text_encoder=(text_encoder or d.text_encoder) if architecture is Architecture.paper else None,
    )
    if cfg.inputs == "a":
        note("inputs a: the options only (no question, no transcript, video or audio), the paper's NCAQ")
    accelerator = fusion_accelerator()
    with model_flags(backbone):
        scorer, dev, features = train_fusion(
            train_items, dev_items, train_data.media_root, cfg, FeatureCache(cache_dir), accelerator, progress=progress
        )
    if accelerator.is_main_process:
        names = configs(dev_items)
        metrics = {
            "dev": {c: dev[c] for c in names},
            "chance": chance(names),
            "inputs": cfg.inputs,
            "config": cfg.config,
            "architecture": cfg.architecture,
            "missing": features.missing_counts(train_items + dev_items),
            "best_epoch": dev["epoch"],
            "history": dev["history"],
            "n_train": len(train_items),
            "n_dev": len(dev_items),
            "processes": accelerator.num_processes,
        }
        scorer.save(out, extra={"metrics.json": metrics})  # model and metrics appear together, in one rename
        for modality, errors in features.errors.items():
            if errors:
                first = next(iter(errors.items()))
                note(f"note: {modality} masked for {len(errors)} video(s) (first: {first[0]}: {first[1]})")
        typer.echo(
            f"{cfg.inputs} {cfg.config}: dev {_scores(dev, names)} (epoch {dev['epoch']}); "
            f"missing {metrics['missing']}; architecture {cfg.architecture}"
        )
        note(f"wrote {out}")
    accelerator.wait_for_everyone()  # every process returns once the model is on disk


def _scores(metrics: dict, names: tuple[str, ...]) -> str:
    """``A4 0.5250, A2 0.7833``: the accuracy of each configuration."""
    return ", ".join(f"{c} {metrics[c]:.4f}" for c in names)


FLAGS = {
    "frame encoder": "pass --video-pretrained none (random weights), --video-pretrained FILE (a checkpoint) or "
    "--video-encoder FOLDER (open_clip or transformers)",
    "speech encoder": "pass --audio-encoder FOLDER, or --audio-encoder logmel (no weights)",
    "sentence encoder": "pass --text-encoder FOLDER (sentence-transformers)",
}
"""What ``desiq train`` can use instead of an encoder that cannot be loaded offline."""


@contextmanager
def model_flags(backbone: str) -> Iterator[None]:
    """Weights that cannot be loaded offline end in one line naming them and the ``desiq train`` flag to use."""
    from mmsoc.media.weights import ModelUnavailable, hub_fetch, loading

    try:
        instead = "pass --backbone FOLDER (a T5 checkpoint and tokenizer)"
        with loading("T5 backbone", backbone, hub_fetch(backbone), instead):
            yield
    except ModelUnavailable as err:
        raise err.using(FLAGS[err.role]) if err.role in FLAGS else err from None


@fusion_app.command("eval")
def evaluate(
    model: Annotated[Path, option("--model", help="Model folder written by `desiq fusion train`.")],
    data: Data,
    out: Annotated[
        Path,
        option(
            "--out",
            help="Run folder: config.json, predictions.jsonl, metrics.json. A rerun "
            "resumes; a different configuration there is refused.",
        ),
    ],
    split: Split = None,
    condition: Annotated[
        OptionPerturbKind | None,
        option(
            "--condition",
            help="Perturb the options first (" + perturbation_help(option_only=True) + ").",
            case_sensitive=False,
        ),
    ] = None,
    seed: Seed = 0,
    batch_size: BatchSize = 16,
    cache_dir: CacheDir = None,
    fields: Fields = None,
    schema: Schema = None,
    format: Format = "auto",
    progress: Progress = True,
) -> None:
    """Score every option of a split (default val); several processes (accelerate launch) give the same predictions."""
    from desiq.data import qa_data
    from desiq.formats import read_note
    from desiq.fusion.evaluate import evaluate_run
    from desiq.records import configs
    from mmsoc.media import FeatureCache

    source = qa_data(data, split, default_split="val", mapping=field_mapping(fields, schema), format=format)
    reading = source.reading()
    note(read_note(reading))
    items = reading.items
    labelled = sum(item.labelled for item in items)
    if condition is not None and labelled == 0:
        raise UsageError(f"{source.qa} has no answer keys: --condition needs labelled questions")
    metrics = evaluate_run(
        model, source, out, condition.value if condition else None, seed, batch_size, FeatureCache(cache_dir), progress
    )
    if metrics:
        label = " ".join(x for x in (source.split or str(source.qa), condition.value if condition else "") if x)
        if labelled == 0:  # nothing to score against: say so instead of an accuracy
            typer.echo(
                f"{label}: {metrics['n']} unlabelled questions (no answer key): not scored; the option "
                f"scores are in {out / 'predictions.jsonl'}"
            )
        else:
            typer.echo(
                f"{label}: {_scores(metrics, configs(items))} on {metrics['n']} questions; missing {metrics['missing']}"
            )
        note(f"wrote {out}")


@cache_app.command("info")
def cache_info(cache_dir: CacheDir = None) -> None:
    """Show the cache folder and its entries and size per modality."""
    from mmsoc.media import FeatureCache

    cache = FeatureCache(cache_dir)
    stats = cache.stats()
    typer.echo(f"cache: {cache.root}")
    for s in stats:
        typer.echo(f"{s.modality}\t{s.entries} entries\t{s.bytes / 1e6:.2f} MB")
    if not stats:
        typer.echo("empty")


@cache_app.command("clear")
def cache_clear(
    modality: Annotated[str | None, option("--modality", help="Only this modality (video, audio, transcript).")] = None,
    cache_dir: CacheDir = None,
) -> None:
    """Delete cached features (all, or one modality's)."""
    from mmsoc.media import FeatureCache

    cache = FeatureCache(cache_dir)
    typer.echo(f"removed {cache.clear(modality)} entries from {cache.root}")
