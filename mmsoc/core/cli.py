"""What both command-line apps share: how an app is assembled, one error policy, common options.

Conventions of every command: ``--data`` names a dataset (a folder in the suite's layout, a single
file where the command reads one, or ``sample`` for the embedded sample); ``--out`` is where results
go; results and tables are printed to stdout, progress and notes ("wrote ...") to stderr. Bad input
ends in one line ``error: ...`` on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Sequence
from typing import Annotated, Any

import typer

from mmsoc.core.io import InputError, UsageError
from mmsoc.core.startup import quick_exit

EXPECTED_ERRORS = (UsageError, InputError, OSError, KeyError, ValueError)
"""Failures reported as one line; anything else is a bug and keeps its traceback."""


def make_app(name: str, help: str, parts: Sequence[typer.Typer]) -> typer.Typer:
    """A typer app made of the commands of ``parts`` (each command module's own ``app``)."""
    app = typer.Typer(name=name, help=help, no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)

    def root() -> None:
        # Weight-loading progress bars are noise on a command line (results go to stdout, notes to stderr).
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

    root.__doc__ = f"Run ``{name} COMMAND --help`` for each command's options."
    app.callback()(root)
    for part in parts:
        _guard(part)
        app.add_typer(part)
    return app


def _guard(app: typer.Typer) -> None:
    """Wrap every command of ``app`` (and of its sub-apps) in the error policy."""
    for command in app.registered_commands:
        if command.callback is not None and not hasattr(command.callback, "__guarded__"):
            command.callback = _one_line_errors(command.callback)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            _guard(group.typer_instance)


def _one_line_errors(function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except EXPECTED_ERRORS as err:
            typer.echo(f"error: {error_message(err)}", err=True)
            raise typer.Exit(2) from None

    guarded.__guarded__ = True  # type: ignore[attr-defined]
    return guarded


def commands() -> typer.Typer:
    """The ``app`` a command module registers its commands on."""
    return typer.Typer(add_completion=False, pretty_exceptions_enable=False)


def error_message(err: BaseException) -> str:
    """The error as one line (a library's message over several lines is joined)."""
    text = str(err.args[0]) if isinstance(err, KeyError) and err.args else str(err)
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def run_cli(app: typer.Typer) -> None:
    """Run a typer app; an expected failure exits 2 with its message on one line (commands are
    guarded by ``make_app``; this catches what escapes outside them, e.g. while parsing)."""
    quick_exit()
    try:
        app()
    except EXPECTED_ERRORS as err:
        print(f"error: {error_message(err)}", file=sys.stderr)
        sys.exit(2)


def note(message: str) -> None:
    """A note for the user (progress, where files went): stderr, so stdout stays pipeable."""
    typer.echo(message, err=True)


# Options shared by commands of both apps (typer copies an Annotated option per use).
Seed = Annotated[int, typer.Option("--seed", help="Seed of every random choice (same seed, same bytes).")]
Limit = Annotated[int | None, typer.Option("--limit", min=0, help="At most this many items per task.")]
Progress = Annotated[bool, typer.Option("--progress/--no-progress", help="Show a progress bar.")]
MinClusters = Annotated[
    int,
    typer.Option(
        "--min-clusters",
        min=1,
        help="The fewest clusters (videos; items for MM-Soc tasks) an interval and a verdict are drawn from; "
        "with fewer a row says it has too few to tell.",
    ),
]
Device = Annotated[str, typer.Option("--device", help="Device (cpu, cuda, cuda:1, ...); auto = this process's.")]
Dtype = Annotated[str, typer.Option("--dtype", help="Model weights dtype: float32, bfloat16, float16 or auto.")]
Adapter = Annotated[str | None, typer.Option("--adapter", help="peft (LoRA) adapter folder applied to --model.")]
BatchSize = Annotated[int, typer.Option("--batch-size", min=1, help="Requests per model call (never changes results).")]
