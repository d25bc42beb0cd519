"""``desiq data sample``, ``desiq perturb`` and ``desiq build``: Social-IQ or any MCQA file in; Social-IQ 2.0
files out (a generic file: its own columns, in the container the output's suffix names), each with a data
card (``OUT.card.md``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from desiq.commands.options import (
    Choices,
    Data,
    Fields,
    Format,
    MediaRoot,
    OutFormat,
    PerturbKind,
    Schema,
    Split,
    Variant,
    field_mapping,
    perturbation_help,
    variant_help,
)
from desiq.perturbation_schemes import Scope
from mmsoc.core.options import Seed, option

if TYPE_CHECKING:
    from desiq.formats import MCQAReading
    from desiq.perturbation_schemes import PerturbResult
from mmsoc.core.cli import commands, note

app = commands()
OUT_HELP = (
    "Output QA file (Social-IQ 2.0 JSON Lines; a generic input: its columns, in the container the suffix "
    "names: .csv .tsv .json .jsonl .parquet)."
)

data_app = typer.Typer(help="The embedded sample dataset.", no_args_is_help=True)
app.add_typer(data_app, name="data")


@data_app.command("sample")
def data_sample(
    out: Annotated[Path, option("--out", help="Folder to write the Social-IQ 2.0 layout into.")],
    media: Annotated[
        bool, option("--media/--no-media", help="Also write mp4 clips, wav audio and WebVTT transcripts.")
    ] = True,
    overwrite: Annotated[bool, option("--overwrite")] = False,
) -> None:
    """Write the embedded sample: qa/qa_{train,val}.json, video/, audio/wav/, transcript/."""
    from desiq.sample import sample_items, write_sample
    from mmsoc.core.io import building_folder, swap_in_folder

    if overwrite:  # the folder's contents replaced in one rename
        with building_folder(out) as build:
            swap_in_folder(write_sample(build, media=media), out)
    else:
        write_sample(out, media=media)
    note(
        f"wrote the sample to {out}: {len(sample_items('train'))} train and "
        f"{len(sample_items('val'))} val questions" + (" with media" if media else "")
    )


@app.command()
def perturb(
    data: Data,
    condition: Annotated[PerturbKind, option("--condition", help=perturbation_help(), case_sensitive=False)],
    out: Annotated[Path, option("--out", help=OUT_HELP)],
    split: Split = None,
    choices: Choices = "AK",
    seed: Seed = 0,
    scope: Annotated[Scope | None, option("--scope", help="Where partner questions come from (default: any).")] = None,
    fields: Fields = None,
    schema: Schema = None,
    media_root: MediaRoot = None,
    format: Format = "auto",
    out_format: OutFormat = None,
) -> None:
    """Apply one perturbation (of the DeSIQ paper, option shuffling or a plugin's) to a QA file."""
    from desiq.commands.options import config_of
    from desiq.data import qa_data
    from desiq.formats import read_note
    from desiq.perturbation_schemes import perturb as apply
    from desiq.records import in_config

    mapping = field_mapping(fields, schema)
    reading = qa_data(data, split, mapping=mapping, media_root=media_root, format=format).reading()
    note(read_note(reading))
    from desiq.perturbations import PERTURBATIONS

    config = config_of(choices, reading.items)
    items = in_config(reading.items, config)
    result = apply(items, condition.value, seed=seed, scope=scope)
    scoped = (scope or Scope.any).value
    made = f"desiq perturb --condition {condition.value} --choices {config} --scope {scoped} --seed {seed}"
    moved = None
    if not PERTURBATIONS[condition.value].keeps_answer_index:
        moved = sum(before.answer_idx != after.answer_idx for before, after in zip(items, result.items))
    _write(out, reading, result, made, out_format, moved)


@app.command()
def build(
    data: Data,
    variant: Annotated[Variant, option("--variant", help=variant_help())],
    out: Annotated[Path, option("--out", help=OUT_HELP)],
    split: Split = None,
    seed: Seed = 0,
    fields: Fields = None,
    schema: Schema = None,
    media_root: MediaRoot = None,
    format: Format = "auto",
    out_format: OutFormat = None,
) -> None:
    """Build a DeSIQ split: every incorrect option becomes another question's correct answer.

    Partners come from another group, or the same group: a video, a passage, the file's group column."""
    from desiq.data import qa_data
    from desiq.formats import read_note
    from desiq.perturbations import SPLITS
    from desiq.splits import answer_repeated_as_distractor, build_split, require_labels

    source = qa_data(data, split, mapping=field_mapping(fields, schema), media_root=media_root, format=format)
    reading = source.reading()
    note(read_note(reading))
    items = reading.items
    require_labels(items, str(source.qa))
    repeated = answer_repeated_as_distractor(items)
    if repeated:
        note(
            f"note: {len(repeated)} questions of {source.qa} repeat their correct answer as a distractor "
            f"(first: {repeated[0].id}); the rebuild replaces those distractors"
        )
    result = build_split(items, variant.value, seed=seed, source=str(source.qa))
    record = SPLITS[variant.value]
    _write(out, reading, result, f"desiq build --variant {variant.value} ({record.name}) --seed {seed}", out_format)
    if record.scope is Scope.same_video:  # the only scope that can run short of partners
        note(
            f"fallbacks: {result.fallback_items} items took {result.fallback_options} options from other "
            "groups because their group had too few questions"
        )


def _write(
    out: Path, reading: MCQAReading, result: PerturbResult, made: str, out_format: str | None, moved: int | None = None
) -> None:
    """The perturbed items (in the input's format and layout where it is writable, else Social-IQ 2.0) and
    their card; ``moved``: how many answers moved to another index, for a perturbation that moves them."""
    from desiq.cards import write_card
    from desiq.formats import write_like, write_note

    note(write_note(out, write_like(out, result.items, reading, out_format), reading))
    counts = {
        "questions written": len(result.items),
        "options replaced": result.options_replaced,
        "questions whose partners came from other groups (fallback)": result.fallback_items,
        "options taken from other groups (fallback)": result.fallback_options,
        "options left as they were (the pool ran dry)": result.dry_options,
        "questions with an option left as it was": result.dry_items,
    }
    if moved is not None:
        counts["questions whose answer moved to another index"] = moved
    card = write_card(out, reading, made, counts)
    tail = f"; {result.dry_options} options left as they were (pool ran dry)" if result.dry_options else ""
    tail += f"; {moved} answers moved to another index" if moved is not None else ""
    note(f"{made}: {len(result.items)} items, {result.options_replaced} options replaced{tail} -> {out} ({card.name})")
