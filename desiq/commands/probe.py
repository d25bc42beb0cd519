"""``desiq probe``: can the dataset be solved without looking at the video?"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from mmsoc.core.cli import commands
from desiq.commands.options import console

app = commands()

ProbeInputs = Enum("ProbeInputs", {k: k for k in ("a", "q+a", "a+t", "a+v", "a+s", "q+a+t")}, type=str)
ProbeName = Enum("ProbeName", {n: n for n in ("embed-linear", "tfidf-linear", "t5", "fusion")}, type=str)


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
    backbone: Annotated[str, typer.Option(help="T5 id or local folder for --probe t5/fusion (e.g. from "
                                                "`hf download google-t5/t5-small --local-dir DIR`).")] = "t5-small",
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
