"""``desiq data sample``, ``desiq perturb`` and ``desiq build``: Social-IQ files in, Social-IQ 2.0 files out."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from desiq.commands.options import Config, Data, PerturbKind, Split, Variant, perturbation_help, variant_help
from desiq.perturbations import Scope
from mmsoc.core.cli import Seed, commands, note

app = commands()

data_app = typer.Typer(help="The embedded sample dataset.", no_args_is_help=True)
app.add_typer(data_app, name="data")


@data_app.command("sample")
def data_sample(
    out: Annotated[Path, typer.Option(help="Folder to write the Social-IQ 2.0 layout into.")],
    media: Annotated[bool, typer.Option(help="Also write mp4 clips, wav audio and WebVTT transcripts.")] = True,
) -> None:
    """Write the embedded sample: qa/qa_{train,val}.json, video/, audio/wav/, transcript/."""
    from desiq.sample import sample_items, write_sample

    write_sample(out, media=media)
    note(
        f"wrote the sample to {out}: {len(sample_items('train'))} train and "
        f"{len(sample_items('val'))} val questions" + (" with media" if media else "")
    )


@app.command()
def perturb(
    data: Data,
    kind: Annotated[PerturbKind, typer.Option(help=perturbation_help())],
    out: Annotated[Path, typer.Option(help="Output QA file (Social-IQ 2.0 JSON Lines).")],
    split: Split = None,
    config: Annotated[Config, typer.Option(help="A4 keeps the 4 options; A2 writes the binary pairs.")] = Config.A4,
    seed: Seed = 0,
    scope: Annotated[Scope | None, typer.Option(help="Where partner questions come from (default: any).")] = None,
) -> None:
    """Apply one perturbation of the DeSIQ paper to a QA file."""
    from desiq.data import qa_data
    from desiq.formats import write_mcqa
    from desiq.perturb import perturb as apply
    from desiq.records import to_a2

    items = qa_data(data, split).items()
    if config is Config.A2:
        items = to_a2(items)
    result = apply(items, kind.value, seed=seed, scope=scope)
    write_mcqa(out, result.items)
    note(
        f"{kind.value} ({config.value}, scope {(scope or Scope.any).value}, seed {seed}): {len(result.items)} "
        f"items, {result.options_replaced} options replaced -> {out}"
    )


@app.command()
def build(
    data: Data,
    variant: Annotated[Variant, typer.Option(help=variant_help())],
    out: Annotated[Path, typer.Option(help="Output QA file (Social-IQ 2.0 JSON Lines).")],
    split: Split = None,
    seed: Seed = 0,
) -> None:
    """Build a DeSIQ split: every incorrect option becomes another question's correct answer."""
    from desiq.data import qa_data
    from desiq.formats import write_mcqa
    from desiq.perturbations import SPLITS
    from desiq.splits import answer_repeated_as_distractor, build_split, require_labels

    source = qa_data(data, split)
    items = source.items()
    require_labels(items, str(source.qa))
    repeated = answer_repeated_as_distractor(items)
    if repeated:
        note(
            f"note: {len(repeated)} questions of {source.qa} repeat their correct answer as a distractor "
            f"(first: {repeated[0].id}); the rebuild replaces those distractors"
        )
    result = build_split(items, variant.value, seed=seed, source=str(source.qa))
    write_mcqa(out, result.items)
    record = SPLITS[variant.value]
    note(
        f"{record.name} (seed {seed}): {len(result.items)} items, {result.options_replaced} options replaced "
        f"(marked {record.marker} in idx_types) -> {out}"
    )
    if record.scope is Scope.same_video:  # the only scope that can run short of partners
        note(
            f"fallbacks: {result.fallback_items} items took {result.fallback_options} options from other "
            "videos because their video had too few questions"
        )
