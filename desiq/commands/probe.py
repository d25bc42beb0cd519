"""``desiq probe``: can the dataset be solved without looking at the video?"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from desiq.commands.options import Fields, Format, Schema, Split, field_mapping
from desiq.commands.probe_battery import Judging, ProbeFiles, heuristics_only, judge_together, shortcut_battery
from desiq.fusion.architecture import AUDIO_ENCODER, Architecture
from desiq.probes import PROBES
from mmsoc.core.cli import commands, note
from mmsoc.core.options import MinClusters, MinEffect, Progress, Seed, option
from mmsoc.core.provenance import append_record, record
from mmsoc.metrics.verdict import MIN_CLUSTERS, MIN_EFFECT

if TYPE_CHECKING:
    from desiq.formats import MCQAReading
    from desiq.formats.mcqa_fields import Mapping
    from desiq.records import MCQAItem

app = commands()

ProbeInputs = Enum(
    "ProbeInputs",
    [("a", "a"), ("q+a", "q+a"), ("a+t", "a+t"), ("a+v", "a+v"), ("a+s", "a+s"), ("q+a+t", "q+a+t")],
    type=str,
)
# the members come from the registry, which mypy cannot read
ProbeName = Enum("ProbeName", {name: name for name, _, _ in PROBES.known()}, type=str)  # type: ignore[misc]
PROBE_HELP = "; ".join(f"{name}: {entry.summary}" for name, entry, _ in PROBES.known())


@contextmanager
def probe_flags(backbone: str) -> Iterator[None]:
    """Weights that cannot be loaded offline end in one line naming them and the ``desiq probe`` flag to use."""
    from mmsoc.media.weights import ModelUnavailable, hub_fetch, loading

    try:
        instead = "pass --backbone FOLDER (a T5 checkpoint and tokenizer)"
        with loading("T5 backbone", backbone, hub_fetch(backbone), instead):
            yield
    except ModelUnavailable as err:
        if err.role != "sentence encoder":
            raise
        instead = "pass --encoder FOLDER (sentence-transformers), or --probe tfidf-linear, which runs without it"
        raise err.using(instead) from None


ProbeOut = Annotated[Path, option("--out", help="Folder for probe.json, probe.md and tsne.png.")]
ProbeData = Annotated[
    Path | None,
    option(
        "--data",
        help="Social-IQ folder: trains on qa/qa_train.json, scores "
        "qa/qa_SPLIT.json (--split, default val), media by vid_name. "
        "Without --data and --train/--eval: the embedded sample.",
    ),
]
TrainFile = Annotated[
    Path | None,
    option(
        "--train",
        help="Training QA file (with --eval, instead of --data); with --probe heuristics, what position_prior "
        "learns from (else cross-fitted by video).",
    ),
]
EvalFile = Annotated[
    Path | None, option("--eval", help="QA file to score (with --train; alone with --probe heuristics).")
]
Inputs = Annotated[
    ProbeInputs,
    option(
        "--inputs",
        help="What the probe sees: a = options only (NCAQ), q+a; media settings (a+t, ...) need --probe fusion.",
    ),
]
Probe = Annotated[ProbeName, option("--probe", help=PROBE_HELP)]
Backbone = Annotated[
    str,
    option(
        "--backbone",
        help="T5 id or local folder for --probe t5/fusion (e.g. from "
        "`hf download google-t5/t5-small --local-dir DIR`).",
    ),
]
Encoder = Annotated[str, option("--encoder", help="Sentence encoder for embed-linear (id or folder).")]
Epochs = Annotated[int, option("--epochs", help="Training epochs for --probe t5/fusion.")]
MediaRoot = Annotated[
    Path | None,
    option(
        "--media-root",
        help="Social-IQ folder with video/, audio/, transcript/ (--probe fusion with --train/--eval).",
    ),
]
ArchitectureChoice = Annotated[
    Architecture,
    option(
        "--architecture",
        help="T5-fusion model of --probe t5/fusion: ours (default: "
        "T5 over the option tokens, closest to the paper's "
        "text-only NCAQ probe) or paper (the official Concat "
        "model over frozen text features).",
    ),
]
TextEncoder = Annotated[
    str | None,
    option(
        "--text-encoder",
        help="Frozen text encoder of --architecture paper (id or folder; default bert-base-uncased).",
    ),
]
AudioEncoder = Annotated[
    str,
    option(
        "--audio-encoder",
        help="Audio encoder of --probe fusion with inputs ...+s: a "
        "wav2vec2-style id or folder, or 'logmel' (no pretrained "
        "model).",
    ),
]
Debiased = Annotated[
    bool,
    option(
        "--debiased/--no-debiased", help="Also retrain and score on the DeSIQ_d and DeSIQ_s rebuilds of both files."
    ),
]
Tsne = Annotated[bool, option("--tsne/--no-tsne", help="Draw tsne.png of the eval options.")]
PerItem = Annotated[
    bool,
    option(
        "--per-item/--no-per-item",
        help="Also write per_item.jsonl: per eval question, the picks of blind probes (a, q+a) that never "
        "trained on its video (5 folds by video) and whether each shortcut answers it.",
    ),
]

Compare = Annotated[
    list[Path] | None,
    option(
        "--compare",
        help="Another version of the eval file (a subset, a rebuild made elsewhere; read as --eval is): every "
        "probe and shortcut scores it too, and each row says how it differs from the eval file on the questions "
        "both hold (matched by qid, video and question). Repeatable.",
    ),
]


@app.command()
def probe(
    out: ProbeOut,
    data: ProbeData = None,
    split: Split = None,
    train: TrainFile = None,
    eval_file: EvalFile = None,
    inputs: Inputs = ProbeInputs.a,
    probe: Probe = ProbeName("embed-linear"),
    seed: Seed = 0,
    backbone: Backbone = "t5-small",
    encoder: Encoder = "default",
    epochs: Epochs = 3,
    media_root: MediaRoot = None,
    architecture: ArchitectureChoice = Architecture.ours,
    text_encoder: TextEncoder = None,
    audio_encoder: AudioEncoder = AUDIO_ENCODER,
    debiased: Debiased = True,
    tsne: Tsne = True,
    per_item: PerItem = False,
    fields: Fields = None,
    schema: Schema = None,
    format: Format = "auto",
    min_clusters: MinClusters = MIN_CLUSTERS,
    min_effect: MinEffect = MIN_EFFECT,
    compare: Compare = None,
    progress: Progress = True,
) -> None:
    """Can the dataset be solved without the video? Train a probe, score every perturbation.

    --probe heuristics needs no training: give --eval FILE (or --data, or nothing for the sample).
    """
    from desiq.inputs import InputSetting
    from desiq.probe_report import probe_markdown, tsne_figure, write_probe_outputs
    from desiq.probe_table import debiased_rows, run_probe
    from desiq.probes import make_probe
    from mmsoc.core.io import check_writable

    files = ProbeFiles(data, split, train, eval_file, field_mapping(fields, schema), format)
    judging = Judging(seed, min_clusters, min_effect, compare or [], files.mapping, format)
    if not PROBES[probe.value].trains:
        return heuristics_only(out, files, inputs.value, judging, per_item)
    media_needed = bool(PROBES[probe.value].media and InputSetting.parse(inputs.value).media)
    train_items, eval_items, names, media_root = _probe_items(
        out, data, split, train, eval_file, files.mapping, format, media_root, media_needed
    )
    versions = judging.versions(eval_items)
    check_writable(out)  # a folder that cannot take the results fails now, not after training
    backend = make_probe(
        probe.value,
        backbone=backbone,
        encoder=encoder,
        epochs=epochs,
        media_root=media_root,
        architecture=architecture.value,
        text_encoder=text_encoder,
        audio_encoder=audio_encoder,
        progress=progress,
    )
    with probe_flags(backbone):
        report = run_probe(backend, train_items, eval_items, inputs.value, seed, names, probe.value, progress, versions)
        if tsne:  # drawn from the probe trained on the original data, before any retraining
            tsne_figure(backend, eval_items, out / "tsne.png", seed=seed, progress=progress)
        if debiased:
            report.results += debiased_rows(
                backend, train_items, eval_items, inputs.value, seed=seed, progress=progress
            )
    battery = shortcut_battery(train_items, eval_items, names, inputs.value, debiased, judging, versions)
    report.results, report.shortcuts = judge_together(report.results, battery, judging), battery
    write_probe_outputs(report, out)
    append_record(out, record())
    typer.echo(probe_markdown(report))
    note(f"wrote {out / 'probe.json'}, {out / 'probe.md'}" + (f", {out / 'tsne.png'}" if tsne else ""))
    if per_item:
        from desiq.per_item import per_item_outputs

        per_item_outputs(out, eval_items, backend, probe.value, train_items, seed, progress=progress)


def _probe_items(
    out: Path,
    data: Path | None,
    split: str | None,
    train: Path | None,
    eval_file: Path | None,
    mapping: Mapping | None,
    format: str,
    media_root: Path | None,
    media_needed: bool,
) -> tuple[list[MCQAItem], list[MCQAItem], tuple[str, str], Path | None]:
    """The train and eval questions a probe trains and is scored on (a Social-IQ folder's, two files' or the
    embedded sample's), their names and the media root (the sample's media written under ``out`` when needed)."""
    from desiq.data import qa_data, resolve_data
    from desiq.formats import read_note, read_source
    from desiq.sample import sample_items, write_sample
    from mmsoc.core.io import UsageError

    if (train is None) != (eval_file is None):
        raise UsageError("give both --train and --eval, or neither")
    if split is not None and data is None:
        raise UsageError("--split picks the evaluation file of a Social-IQ folder given as --data")
    readings: list[MCQAReading] = []
    if data is not None:
        data = resolve_data(data)
        if train is not None:
            raise UsageError("give --data (a Social-IQ folder) or --train and --eval, not both")
        if not data.is_dir():
            raise UsageError(
                f"--data {data}: desiq probe trains and scores, so --data is a Social-IQ folder "
                "(qa/qa_train.json and qa/qa_SPLIT.json); for single files use --train and --eval"
            )
        train_data = qa_data(data, "train", format=format)
        eval_data = qa_data(data, split, default_split="val", format=format)
        readings = [train_data.reading(), eval_data.reading()]
        names, media_root = (str(train_data.qa), str(eval_data.qa)), media_root or data
    elif train is not None and eval_file is not None:
        readings = [read_source(train, mapping, format=format), read_source(eval_file, mapping, format=format)]
        names = (str(train), str(eval_file))
    else:
        train_items, eval_items, names = sample_items("train"), sample_items("val"), ("sample train", "sample val")
        if media_needed and media_root is None:
            media_root = write_sample(out / "sample")
    for reading in readings:
        note(read_note(reading))
    if readings:
        train_items, eval_items = readings[0].items, readings[1].items
    unlabelled = sum(not item.labelled for item in eval_items)
    if unlabelled:
        raise UsageError(
            f"{names[1]}: {unlabelled} questions have no answer key (the test split?): a probe reports "
            "accuracy, so it scores labelled questions only"
        )
    return train_items, eval_items, names, media_root
