"""``mmsoc data``: write the embedded sample, check a data folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mmsoc.core.cli import commands
from mmsoc.core.options import Limit, option

app = commands()

data_app = typer.Typer(help="MM-Soc data: the embedded sample and checks of local data folders.", no_args_is_help=True)
app.add_typer(data_app, name="data")

SampleOut = Annotated[Path, option("--out", help="Folder to write the sample to (must be empty or new).")]
Overwrite = Annotated[bool, option("--overwrite")]
CheckData = Annotated[
    str, option("--data", help="Data folder in the MM-Soc layout, `sample`, `hub` or hf://OWNER/NAME.")
]
Split = Annotated[str, option("--split", help="Split to load (train, dev or test; val = dev).")]
Tasks = Annotated[str, option("--task")]


@data_app.command("sample")
def sample(out: SampleOut, overwrite: Overwrite = False) -> None:
    """Write the embedded sample data (every task, train and test splits) in the local layout."""
    from mmsoc.tasks.data.sample import N_TEST, N_TRAIN, write_sample

    try:
        write_sample(out, overwrite=overwrite)
    except FileExistsError as err:
        raise typer.BadParameter(str(err), param_hint="--out") from None
    typer.echo(f"wrote the MM-Soc sample ({N_TRAIN} train / {N_TEST} test items per task) to {out}")


@data_app.command("check")
def check(data: CheckData = "sample", split: Split = "test", task: Tasks = "all", limit: Limit = None) -> None:
    """Load each task's split and report item counts and per-item problems.

    Problems are missing images, paths outside the data folder, ..."""
    from mmsoc.core.io import InputError, UsageError
    from mmsoc.runners.console import print_whole
    from mmsoc.tasks import parse_task_list
    from mmsoc.tasks.data import load_examples

    rows, failed = [], False
    for task_id in parse_task_list(task):
        try:
            result = load_examples(task_id, data, split, limit)
        except (InputError, UsageError, KeyError) as err:
            rows.append((task_id, "-", "error", str(err)))
            failed = True
            continue
        first = str(result.problems[0]) if result.problems else ""
        rows.append((task_id, str(len(result.examples)), str(len(result.problems)), first))
    print_whole(("task", "items", "problems", "first problem"), rows, title=f"data: {data} ({split})")
    if failed:
        raise typer.Exit(1)
