"""The ``desiq`` command: Social-IQ perturbations, DeSIQ splits, bias probes and the T5-fusion model."""

from __future__ import annotations

import typer

from mmsoc.errors import run_cli

app = typer.Typer(
    name="desiq",
    help="Probe video MCQA datasets (Social-IQ) for answer-only bias and build the debiased DeSIQ splits.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Run ``desiq COMMAND --help`` for each command's options."""


def main() -> None:
    """Console entry point."""
    run_cli(app)


# --- Social-IQ data, perturbations, DeSIQ splits and bias probes -------------------------------
from enum import Enum  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Annotated  # noqa: E402

from rich.console import Console  # noqa: E402

from desiq.perturb import KINDS, Scope  # noqa: E402

console = Console(stderr=True)
data_app = typer.Typer(help="The embedded sample dataset.", no_args_is_help=True)
app.add_typer(data_app, name="data")

PerturbKind = Enum("PerturbKind", {k: k for k in KINDS}, type=str)
Config = Enum("Config", {"A4": "A4", "A2": "A2"}, type=str)
Variant = Enum("Variant", {"d": "d", "s": "s"}, type=str)
ProbeInputs = Enum("ProbeInputs", {"a": "a", "q+a": "q+a", "a+t": "a+t", "a+v": "a+v", "a+s": "a+s",
                                   "q+a+t": "q+a+t"}, type=str)
ProbeName = Enum("ProbeName", {n: n for n in ("embed-linear", "tfidf-linear", "t5", "fusion")}, type=str)


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
    from desiq.siq import read_siq2, write_siq2
    from desiq.splits import build_split

    items = read_siq2(data)
    result = build_split(items, variant.value, seed=seed)
    write_siq2(out, result.items)
    console.print(f"DeSIQ_{variant.value} (seed {seed}): {len(result.items)} items, {result.options_replaced} "
                  f"options replaced (marked desiq_{variant.value} in idx_types) -> {out}")
    if variant.value == "s":
        console.print(f"fallbacks: {result.fallback_items} items took {result.fallback_options} options from other "
                      "videos because their video had too few questions")


@app.command()
def probe(
    out: Annotated[Path, typer.Option(help="Folder for probe.json, probe.md and tsne.png.")],
    train: Annotated[Path | None, typer.Option(help="Training QA file; default: the embedded sample's train split.")] = None,
    eval_file: Annotated[Path | None, typer.Option("--eval", help="QA file to score; default: the embedded sample's val split.")] = None,
    inputs: Annotated[ProbeInputs, typer.Option(help="What the probe sees: a = options only (NCAQ), q+a; "
                                                     "media settings (a+t, ...) need --probe fusion.")] = ProbeInputs.a,
    probe: Annotated[ProbeName, typer.Option(help="embed-linear: frozen MiniLM + linear scorer; tfidf-linear: "
                                                  "no torch, fastest; t5: fine-tuned T5 encoder; fusion: T5-fusion.")]
    = ProbeName("embed-linear"),
    seed: Annotated[int, typer.Option(help="Seed of training, perturbations and bootstrap.")] = 0,
    backbone: Annotated[str, typer.Option(help="Model id or folder for --probe t5/fusion.")] = "t5-small",
    encoder: Annotated[str, typer.Option(help="Sentence encoder for embed-linear (id or folder).")] = "default",
    epochs: Annotated[int, typer.Option(help="Training epochs for --probe t5/fusion.")] = 3,
    media_root: Annotated[Path | None, typer.Option(help="Social-IQ folder with video/, audio/, transcript/ "
                                                         "(--probe fusion).")] = None,
    debiased: Annotated[bool, typer.Option(help="Also retrain and score on DeSIQ_d rebuilds of both files.")] = True,
    tsne: Annotated[bool, typer.Option(help="Draw tsne.png of the eval options.")] = True,
) -> None:
    """Can the dataset be solved without the video? Train a probe, score every perturbation."""
    from desiq.probe import debiased_rows, run_probe
    from desiq.probe_backends import make_probe
    from desiq.probe_report import probe_markdown, write_probe_outputs
    from desiq.sample import sample_items, write_sample
    from desiq.siq import read_siq2

    if (train is None) != (eval_file is None):
        raise typer.BadParameter("give both --train and --eval, or neither (the embedded sample)")
    if train is None:
        train_items, eval_items, names = sample_items("train"), sample_items("val"), ("sample train", "sample val")
        if probe.value == "fusion" and media_root is None:
            media_root = write_sample(out / "sample")
    else:
        train_items, eval_items, names = read_siq2(train), read_siq2(eval_file), (str(train), str(eval_file))
    kwargs = {"t5": dict(backbone=backbone, epochs=epochs),
              "fusion": dict(backbone=backbone, epochs=epochs, media_root=media_root),
              "embed-linear": dict(encoder=encoder)}.get(probe.value, {})
    backend = make_probe(probe.value, **kwargs)
    report = run_probe(backend, train_items, eval_items, inputs.value, seed=seed, names=names, probe_name=probe.value)
    if tsne:
        write_probe_outputs(report, out, backend, eval_items)
    if debiased:
        report.results += debiased_rows(backend, train_items, eval_items, inputs.value, seed=seed)
    write_probe_outputs(report, out)
    typer.echo(probe_markdown(report))
    console.print(f"wrote {out / 'probe.json'}, {out / 'probe.md'}" + (f", {out / 'tsne.png'}" if tsne else ""))


# The T5-fusion commands (train, evaluate, cache) register themselves on ``app``.
from desiq import commands_fusion  # noqa: E402,F401
