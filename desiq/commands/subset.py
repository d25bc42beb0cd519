"""``desiq subset --blind-proof``: the questions no blind probe or shortcut answers, in the input's format."""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path
from typing import Annotated

from desiq.commands.options import Data, Fields, Format, OutFormat, Schema, Split, field_mapping
from mmsoc.core.cli import commands, note
from mmsoc.core.options import option

app = commands()


@app.command()
def subset(
    data: Data,
    blind_proof: Annotated[
        list[Path],
        option(
            "--blind-proof",
            help="per_item.jsonl of `desiq probe --per-item` on --data; repeat it to drop what any of several "
            "probes answers.",
        ),
    ],
    out: Annotated[
        Path,
        option(
            "--out",
            help="Output QA file, in the format and columns of --data (a generic file: in the container its "
            "suffix names, .csv .tsv .json .jsonl .parquet); its data card beside it.",
        ),
    ],
    split: Split = None,
    fields: Fields = None,
    schema: Schema = None,
    format: Format = "auto",
    out_format: OutFormat = None,
) -> None:
    """Write the blind-proof subset: the questions of --data that no blind probe or shortcut answers."""
    from desiq.data import qa_data
    from desiq.formats import read_note, resolve_out_format, write_note
    from desiq.subset import blind_proof as select
    from desiq.subset import write_subset
    from mmsoc.core.io import UsageError

    source = qa_data(data, split, mapping=field_mapping(fields, schema), format=format)
    reading = source.reading()
    note(read_note(reading))
    chosen = select(source.qa, reading.items, blind_proof, reading)
    if not chosen.kept:
        raise UsageError(f"every one of the {len(chosen.items)} questions of {source.qa} is blind-solvable: no subset")
    words = ["desiq", "subset", "--data", str(data), *(["--split", split] if split else [])]
    words += [*(["--fields", fields] if fields else []), *(["--schema", str(schema)] if schema else [])]
    words += [w for path in blind_proof for w in ("--blind-proof", str(path))] + ["--out", str(out)]
    chosen = replace(chosen, format=resolve_out_format(out, out_format, reading))
    card = write_subset(chosen, out, shlex.join(words))
    note(write_note(out, chosen.format, reading))
    note(
        f"blind-proof subset: {len(chosen.kept)} of {len(chosen.items)} questions -> {out} "
        f"({chosen.format}); data card {card}"
    )
