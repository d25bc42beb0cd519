"""``desiq subset``: a blind-proof subset of a QA file, in the input's format, with a data card that gives every
shortcut family's accuracy on it."""

from __future__ import annotations

import shlex
from dataclasses import replace
from enum import Enum
from pathlib import Path
from typing import Annotated

from desiq.commands.options import Data, Fields, Format, OutFormat, Schema, Split, field_mapping
from desiq.subset import METHODS
from mmsoc.core.cli import commands, note
from mmsoc.core.options import Seed, option

app = commands()

SubsetMethod = Enum("SubsetMethod", {name: name for name in METHODS}, type=str)  # type: ignore[misc]
BLIND_PROBES = ("tfidf-linear", "embed-linear")


@app.command()
def subset(
    data: Data,
    out: Annotated[
        Path,
        option(
            "--out",
            help="Output QA file, in the format and columns of --data (a generic file: in the container its "
            "suffix names, .csv .tsv .json .jsonl .parquet); its data card beside it.",
        ),
    ],
    blind_proof: Annotated[
        list[Path] | None,
        option(
            "--blind-proof",
            help="per_item.jsonl of `desiq probe --per-item` on --data: its blind probes' picks join the families "
            "the subset holds at chance (--method unsolved: drop what they answer); repeat it for several probes.",
        ),
    ] = None,
    method: Annotated[
        SubsetMethod,
        option(
            "--method",
            help="balanced: the most questions with every shortcut family, flagged probe and gold position within "
            "--tolerance of chance, options reordered; aflite: the adversarial filter of Le Bras et al. (2020); "
            "unsolved: the questions no flagged probe or shortcut answers.",
        ),
    ] = SubsetMethod("balanced"),
    tolerance: Annotated[float, option("--tolerance", min=0.0)] = 1.5,
    min_keep: Annotated[int, option("--min-keep", min=1)] = 100,
    probe: Annotated[
        str,
        option(
            "--probe",
            help=f"Blind probe retrained on the kept questions (and AFLite's filter): {', '.join(BLIND_PROBES)}.",
        ),
    ] = "tfidf-linear",
    seed: Seed = 0,
    split: Split = None,
    fields: Fields = None,
    schema: Schema = None,
    format: Format = "auto",
    out_format: OutFormat = None,
) -> None:
    """Write a blind-proof subset of --data: by default the most questions on which no shortcut is off chance."""
    from desiq.data import qa_data
    from desiq.formats import read_note, resolve_out_format, write_note
    from desiq.probes import make_probe
    from desiq.subset import Settings, choose, write_subset
    from mmsoc.core.io import UsageError

    if probe not in BLIND_PROBES:
        raise UsageError(f"--probe {probe}: a subset retrains a blind text probe, one of {', '.join(BLIND_PROBES)}")
    flag_files = blind_proof or []
    source = qa_data(data, split, mapping=field_mapping(fields, schema), format=format)
    reading = source.reading()
    note(read_note(reading))
    settings = Settings(method.value, tolerance, min_keep, seed)
    chosen = choose(source.qa, reading.items, flag_files, make_probe(probe), settings, reading)
    words = ["desiq", "subset", "--data", str(data), *(["--split", split] if split else [])]
    words += [*(["--fields", fields] if fields else []), *(["--schema", str(schema)] if schema else [])]
    words += [w for path in flag_files for w in ("--blind-proof", str(path))]
    words += ["--method", method.value, "--tolerance", str(tolerance), "--min-keep", str(min_keep)]
    words += ["--probe", probe, "--seed", str(seed), "--out", str(out)]
    chosen = replace(chosen, format=resolve_out_format(out, out_format, reading))
    card = write_subset(chosen, out, shlex.join(words))
    note(write_note(out, chosen.format, reading))
    note(
        f"blind-proof subset ({method.value}): {len(chosen.kept)} of {len(chosen.items)} questions -> {out} "
        f"({chosen.format}); data card {card}"
    )
