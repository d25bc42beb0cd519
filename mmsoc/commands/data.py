"""``mmsoc data``: write the embedded sample, check a data folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mmsoc.core.cli import Limit, commands

app = commands()

data_app = typer.Typer(help="MM-Soc data: the embedded sample and checks of local data folders.", no_args_is_help=True)
app.add_typer(data_app, name="data")

SampleOut = Annotated[Path, typer.Option("--out", help="Folder to write the sample to (must be empty or new).")]
Overwrite = Annotated[bool, typer.Option("--overwrite", help="Replace the folder's contents if it is not empty.")]
CheckData = Annotated[
    str, typer.Option("--data", help="Data folder in the MM-Soc layout, 'sample', 'hub' or hf://OWNER/NAME.")
]
Split = Annotated[str, typer.Option("--split", help="Split to load (train, dev or test; val = dev).")]
Tasks = Annotated[list[str] | None, typer.Option("--task", help="Task id to check (repeatable; default: all ten).")]


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
def check(data: CheckData = "sample", split: Split = "test", task: Tasks = None, limit: Limit = None) -> None:
    """Load each task's split and report item counts and per-item problems (missing images, paths
    outside the data folder, ...)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from mmsoc.core.io import InputError, UsageError
    from mmsoc.tasks import task_ids
    from mmsoc.tasks.data import load_examples

    console, failed = Console(), False
    table = Table("task", "items", "problems", "first problem", title=escape(f"data: {data} ({split})"))
    for task_id in task or task_ids("mmsoc"):
        try:
            result = load_examples(task_id, data, split, limit)
        except (InputError, UsageError, KeyError) as err:
            table.add_row(task_id, "-", "error", escape(str(err)))
            failed = True
            continue
        first = str(result.problems[0]) if result.problems else ""
        table.add_row(task_id, str(len(result.examples)), str(len(result.problems)), escape(first))
    console.print(table)
    if failed:
        raise typer.Exit(1)
