"""``desiq fusion train``, ``desiq fusion eval`` and ``desiq cache info|clear``: the T5-fusion model from the command
line."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from desiq.commands.fusion_options import (
    ArchitectureChoice,
    AudioEncoder,
    Backbone,
    Epochs,
    Lr,
    MaxTokens,
    ModelOut,
    NumFrames,
    Patience,
    TextEncoder,
    TrainBatchSize,
    TrainChoices,
    TrainData,
    TrainInputs,
    VideoEncoder,
    VideoPretrained,
)
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
from desiq.fusion.architecture import AUDIO_ENCODER, DEFAULTS, Architecture
from mmsoc.core.cli import commands, note
from mmsoc.core.io import UsageError
from mmsoc.core.options import BatchSize, Progress, Seed, option

if TYPE_CHECKING:
    from desiq.data import QAData
    from desiq.formats.mcqa_fields import Mapping
    from desiq.fusion import FusionConfig
    from desiq.fusion.features import MediaFeatures
    from desiq.fusion.runner import FusionScorer
    from desiq.records import MCQAItem
    from mmsoc.media import EncoderSpec

app = commands()
fusion_app = typer.Typer(help="The T5-fusion model: train it, score questions with it.", no_args_is_help=True)
app.add_typer(fusion_app, name="fusion")
cache_app = typer.Typer(help="The on-disk feature cache of the media encoders.", no_args_is_help=True)
app.add_typer(cache_app, name="cache")

DEV_FRACTION = 0.2
"""Share of a single QA file's videos held out as dev questions by ``desiq fusion train``."""


@fusion_app.command("train")
def train(
    data: TrainData,
    backbone: Backbone,
    out: ModelOut,
    architecture: ArchitectureChoice = Architecture.paper,
    inputs: TrainInputs = "q+a+t+v+s",
    choices: TrainChoices = "AK",
    epochs: Epochs = None,
    seed: Seed = 0,
    lr: Lr = 1e-4,
    batch_size: TrainBatchSize = None,
    patience: Patience = None,
    video_encoder: VideoEncoder = None,
    video_pretrained: VideoPretrained = "openai",
    num_frames: NumFrames = None,
    audio_encoder: AudioEncoder = AUDIO_ENCODER,
    text_encoder: TextEncoder = None,
    max_tokens: MaxTokens = 16,
    cache_dir: CacheDir = None,
    fields: Fields = None,
    schema: Schema = None,
    format: Format = "auto",
    progress: Progress = True,
) -> None:
    """Train the T5-fusion model with early stopping on the dev questions; write the model and metrics.json."""
    from desiq.fusion import FusionConfig, fusion_accelerator, train_fusion
    from desiq.fusion.runner import check_model_folder
    from mmsoc.media import FeatureCache

    train_data, train_items, dev_items = _training_split(data, field_mapping(fields, schema), format, seed)
    train_data.require_media(inputs)
    chosen = config_of(choices, train_items)
    check_model_folder(out)  # a folder that cannot take the model fails now, not after training
    d = DEFAULTS[architecture]
    encoders = _encoders(architecture, video_encoder, video_pretrained, num_frames, audio_encoder, text_encoder)
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
        _save_trained(out, scorer, dev, features, cfg, train_items, dev_items, accelerator.num_processes)
    accelerator.wait_for_everyone()  # every process returns once the model is on disk


def _training_split(
    data: Path, mapping: Mapping | None, format: str, seed: int
) -> tuple[QAData, list[MCQAItem], list[MCQAItem]]:
    """The training source and its train and dev questions: a Social-IQ folder's train and val files, or a single
    file with a seeded :data:`DEV_FRACTION` of its videos held out."""
    from desiq.data import hold_out_videos, qa_data, resolve_data
    from desiq.formats import read_note

    data = resolve_data(data)
    if data.is_dir():
        train_data = qa_data(data, "train", format=format)
        reading = train_data.reading()
        train_items, dev_items = reading.items, qa_data(data, "val", format=format).items()
    else:
        train_data = qa_data(data, mapping=mapping, format=format)
        reading = train_data.reading()
        train_items, dev_items = hold_out_videos(reading.items, DEV_FRACTION, seed)
    note(read_note(reading))
    return train_data, train_items, dev_items


def _encoders(
    architecture: Architecture,
    video_encoder: str | None,
    video_pretrained: str,
    num_frames: int | None,
    audio_encoder: str,
    text_encoder: str | None,
) -> dict[str, EncoderSpec]:
    """The media encoders of ``architecture``, its defaults where a flag is not given."""
    from desiq.fusion import default_encoders
    from desiq.fusion.paper_media import paper_encoders

    d = DEFAULTS[architecture]
    if architecture is Architecture.paper:
        return paper_encoders(
            text_encoder or d.text_encoder, video_encoder or d.video_encoder, num_frames or d.num_frames, audio_encoder
        )
    return default_encoders(
        video_encoder or d.video_encoder,
        None if video_pretrained.lower() == "none" else video_pretrained,
        num_frames or d.num_frames,
        audio_encoder,
        text_encoder or d.text_encoder,
    )


def _save_trained(
    out: Path,
    scorer: FusionScorer,
    dev: dict,
    features: MediaFeatures,
    cfg: FusionConfig,
    train_items: list[MCQAItem],
    dev_items: list[MCQAItem],
    processes: int,
) -> None:
    """Write the model with its metrics.json in one rename; say what was masked and the dev scores."""
    from desiq.fusion.runner import chance
    from desiq.records import configs

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
        "processes": processes,
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
