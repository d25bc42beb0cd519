"""``desiq data sample``, ``desiq perturb`` and ``desiq build``: Social-IQ files in, Social-IQ files out."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from mmsoc.core.cli import commands
from desiq.commands.options import Config, PerturbKind, console
from desiq.perturb import Scope

app = commands()

data_app = typer.Typer(help="The embedded sample dataset.", no_args_is_help=True)
app.add_typer(data_app, name="data")
Variant = Enum("Variant", {"d": "d", "s": "s"}, type=str)


@data_app.command("sample")
def data_sample(
    out: Annotated[Path, typer.Option(help="Folder to write the Social-IQ 2.0 layout into.")],
    media: Annotated[bool, typer.Option(help="Also write mp4 clips, wav audio and WebVTT transcripts.")] = True,
) -> None:
    """Write the embedded sample: qa/qa_{train,val}.json, video/, audio/wav/, transcript/."""
    from desiq.sample import sample_items, write_sample

    write_sample(out, media=media)
    console.print(f"wrote the sample to {out}: {len(sample_items('train'))} train and "
                  f"{len(sample_items('val'))} val questions" + (" with media" if media else ""))


@app.command()
def perturb(
    data: Annotated[Path, typer.Option(help="Social-IQ 2.0 QA file (JSON Lines).")],
    kind: Annotated[PerturbKind, typer.Option(help="NCAQ drops the question; RIWI/RIWA replace each incorrect "
                                                   "option, RAWI/RAWA the correct one.")],
    out: Annotated[Path, typer.Option(help="Output QA file (JSON Lines, same format).")],
    config: Annotated[Config, typer.Option(help="A4 keeps the 4 options; A2 writes the binary pairs.")] = Config.A4,
    seed: Annotated[int, typer.Option(help="Seed of the partner draws.")] = 0,
    scope: Annotated[Scope, typer.Option(help="Where partner questions come from.")] = Scope.any,
) -> None:
    """Apply one perturbation of the DeSIQ paper to a Social-IQ file."""
    from desiq.perturb import perturb as apply
    from desiq.siq import read_siq2, to_a2, write_siq2

    items = read_siq2(data)
    if config is Config.A2:
        items = to_a2(items)
    result = apply(items, kind.value, seed=seed, scope=scope)
    write_siq2(out, result.items)
    console.print(f"{kind.value} ({config.value}, scope {scope.value}, seed {seed}): {len(result.items)} items, "
                  f"{result.options_replaced} options replaced -> {out}")


@app.command()
def build(
    data: Annotated[Path, typer.Option(help="Social-IQ 2.0 QA file (JSON Lines).")],
    variant: Annotated[Variant, typer.Option(help="d: partner answers from other videos; s: from the same video.")],
    out: Annotated[Path, typer.Option(help="Output QA file in the Social-IQ 2.0 format.")],
    seed: Annotated[int, typer.Option(help="Seed of the partner draws.")] = 0,
) -> None:
    """Build a DeSIQ split: every incorrect option becomes another question's correct answer."""
    from desiq.siq import answer_repeated_as_distractor, read_siq2, write_siq2
    from desiq.splits import build_split

    items = read_siq2(data)
    repeated = answer_repeated_as_distractor(items)
    if repeated:
        console.print(f"note: {len(repeated)} questions of {data} repeat their correct answer as a distractor "
                      f"(first: {repeated[0].qid}); the rebuild replaces those distractors")
    result = build_split(items, variant.value, seed=seed)
    write_siq2(out, result.items)
    console.print(f"DeSIQ_{variant.value} (seed {seed}): {len(result.items)} items, {result.options_replaced} "
                  f"options replaced (marked desiq_{variant.value} in idx_types) -> {out}")
    if variant.value == "s":
        console.print(f"fallbacks: {result.fallback_items} items took {result.fallback_options} options from other "
                      "videos because their video had too few questions")
