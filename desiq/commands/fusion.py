"""``desiq train``, ``desiq evaluate`` and ``desiq cache info|clear``: the T5-fusion model from the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mmsoc.core.cli import commands
from desiq.commands.options import Config, OptionPerturbKind, console

app = commands()
cache_app = typer.Typer(help="The on-disk feature cache of the media encoders.", no_args_is_help=True)
app.add_typer(cache_app, name="cache")


CacheDir = Annotated[Path | None, typer.Option(help="Feature cache folder (default: features/ under "
                                                    "$MMSOC_CACHE, else ~/.cache/mmsoc).")]


def _qa(data: Path, split: str) -> list:
    from desiq.siq import read_siq2

    return read_siq2(data / "qa" / f"qa_{split}.json")


@app.command()
def train(
    data: Annotated[Path, typer.Option(help="Social-IQ 2.0 folder: qa/qa_train.json, qa/qa_val.json (dev) and "
                                            "video/, audio/wav/, transcript/ by vid_name.")],
    backbone: Annotated[str, typer.Option(help="T5 checkpoint id (t5-small) or local folder with the checkpoint "
                                                "and tokenizer, e.g. from `hf download google-t5/t5-small "
                                                "--local-dir DIR`; its encoder is used.")],
    out: Annotated[Path, typer.Option(help="Model folder to write (backbone/, head, config, metrics.json).")],
    inputs: Annotated[str, typer.Option(help="Input setting: q question, a answer, t transcript, v video, "
                                             "s audio, joined by '+'.")] = "q+a+t+v+s",
    config: Annotated[Config, typer.Option(help="A4: cross-entropy over the 4 options; A2: over "
                                                          "(correct, incorrect) pairs.")] = Config.A4,
    epochs: Annotated[int, typer.Option(help="Maximum training epochs.")] = 10,
    seed: Annotated[int, typer.Option(help="Seed of initialisation and batch order.")] = 42,
    lr: Annotated[float, typer.Option(help="AdamW learning rate.")] = 1e-4,
    batch_size: Annotated[int, typer.Option(help="Questions per training step (per process).")] = 8,
    patience: Annotated[int, typer.Option(help="Stop after this many epochs without a better dev score.")] = 3,
    video_encoder: Annotated[str, typer.Option(help="open_clip architecture, open_clip folder, or hf:ID / "
                                                    "transformers CLIP folder for frames.")] = "ViT-B-32",
    video_pretrained: Annotated[str, typer.Option(help="open_clip pretrained tag or checkpoint file "
                                                       "('none': random weights).")] = "openai",
    num_frames: Annotated[int, typer.Option(help="Frames sampled uniformly from each video.")] = 8,
    audio_encoder: Annotated[str, typer.Option(help="'logmel' or a transformers speech encoder id/folder "
                                                    "(wav2vec2-style).")] = "logmel",
    text_encoder: Annotated[str, typer.Option(help="Sentence encoder of transcript cues (id or folder; "
                                                   "'default': the shipped all-MiniLM-L6-v2).")] = "default",
    max_tokens: Annotated[int, typer.Option(help="Feature positions per modality (longer sequences are "
                                                 "average-pooled).")] = 16,
    cache_dir: CacheDir = None,
) -> None:
    """Train the T5-fusion model with early stopping on qa_val.json; write the model and metrics.json."""
    from desiq.fusion import FusionConfig, default_encoders, fusion_accelerator, train_fusion
    from mmsoc.media import FeatureCache
    from mmsoc.core.io import write_json

    train_items, dev_items = _qa(data, "train"), _qa(data, "val")
    encoders = default_encoders(video_encoder, None if video_pretrained.lower() == "none" else video_pretrained,
                                num_frames, audio_encoder, text_encoder)
    cfg = FusionConfig(backbone, inputs, config.value, encoders, max_tokens=max_tokens, lr=lr, epochs=epochs,
                       batch_size=batch_size, patience=patience, seed=seed)
    accelerator = fusion_accelerator()
    scorer, dev, features = train_fusion(train_items, dev_items, data, cfg, FeatureCache(cache_dir), accelerator,
                                         progress=True)
    if accelerator.is_main_process:
        scorer.save(out)
        metrics = {"dev": {"A4": dev["A4"], "A2": dev["A2"]}, "inputs": cfg.inputs, "config": cfg.config,
                   "missing": features.missing_counts(train_items + dev_items), "best_epoch": dev["epoch"],
                   "history": dev["history"], "n_train": len(train_items), "n_dev": len(dev_items),
                   "processes": accelerator.num_processes}
        write_json(out / "metrics.json", metrics)
        console.print(f"{cfg.inputs} {cfg.config}: dev A4 {dev['A4']:.4f}, A2 {dev['A2']:.4f} "
                      f"(epoch {dev['epoch']}); missing {metrics['missing']} -> {out}")
    accelerator.wait_for_everyone()  # every process returns once the model is on disk


@app.command()
def evaluate(
    model: Annotated[Path, typer.Option(help="Model folder written by `desiq train`.")],
    data: Annotated[Path, typer.Option(help="Social-IQ 2.0 folder with qa/qa_SPLIT.json and media.")],
    out: Annotated[Path, typer.Option(help="Folder for predictions.jsonl and metrics.json.")],
    split: Annotated[str, typer.Option(help="QA split to score: reads qa/qa_SPLIT.json.")] = "val",
    perturb: Annotated[OptionPerturbKind | None, typer.Option(help="Perturb the options first (RIWI, RIWA, RAWI, "
                                                             "RAWA).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the perturbation's partner draws.")] = 0,
    batch_size: Annotated[int, typer.Option(help="Questions per scoring batch.")] = 16,
    cache_dir: CacheDir = None,
) -> None:
    """Score every option of a split; several processes (accelerate launch) give the same predictions."""
    import numpy as np
    from accelerate.utils import gather_object

    from desiq.fusion import FusionScorer, accuracy, fusion_accelerator
    from desiq.perturb import perturb as apply
    from mmsoc.media import FeatureCache
    from mmsoc.core.io import write_json, write_jsonl

    items = _qa(data, split)
    if perturb is not None:
        items = apply(items, perturb.value, seed=seed).items
    accelerator = fusion_accelerator()
    scorer = FusionScorer.load(model, accelerator.device)
    with accelerator.split_between_processes(list(range(len(items)))) as shard:
        local = [items[k] for k in shard]
        features = scorer.features(local, data, FeatureCache(cache_dir))
        rows = [{"qid": item.qid, "vid_name": item.video, "scores": [float(x) for x in s],
                 "pred": int(np.argmax(s)), "answer_idx": item.answer_idx, "correct": int(np.argmax(s)) == item.answer_idx,
                 "masked": features.masked(item)}
                for item, s in zip(local, scorer.score(local, features, batch_size))]
    rows = gather_object(rows)
    if not accelerator.is_main_process:
        return
    scores = [np.array(r["scores"]) for r in rows]
    missing = {"video": 0, "audio": 0, "transcript": 0}
    for row in rows:
        for modality in row["masked"]:
            missing[modality] += 1
    metrics = {**accuracy(items, scores), "n": len(items), "missing": missing, "inputs": scorer.config.inputs,
               "split": split, "perturb": perturb.value if perturb else None,
               "processes": accelerator.num_processes}
    write_jsonl(out / "predictions.jsonl", rows)
    write_json(out / "metrics.json", metrics)
    console.print(f"{split}{' ' + perturb.value if perturb else ''}: A4 {metrics['A4']:.4f}, A2 {metrics['A2']:.4f} "
                  f"on {len(items)} questions; missing {missing} -> {out}")


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
    modality: Annotated[str | None, typer.Option(help="Only this modality (image, video, audio, transcript).")] = None,
    cache_dir: CacheDir = None,
) -> None:
    """Delete cached features (all, or one modality's)."""
    from mmsoc.media import FeatureCache

    cache = FeatureCache(cache_dir)
    typer.echo(f"removed {cache.clear(modality)} entries from {cache.root}")
