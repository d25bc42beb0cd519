"""What both command-line apps share: how an app is assembled, one error policy, common options.

Conventions of every command: ``--data`` names a dataset (a folder in the suite's layout, a single
file where the command reads one, or ``sample`` for the embedded sample); ``--out`` is where results
go; ``--config FILE`` gives any of a command's options from a YAML or JSON file (the command line
wins); results and tables are printed to stdout, progress and notes ("wrote ...") to stderr. Bad input
ends in one line ``error: ...`` on stderr and exit status 2, never a traceback. A command line in an
old spelling (:mod:`mmsoc.core.spellings`) still runs, with a note, for one release.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup, TyperOption

from mmsoc.core.config_file import defaults_from, read_config
from mmsoc.core.io import InputError, UsageError
from mmsoc.core.options import option
from mmsoc.core.spellings import rewrite
from mmsoc.core.startup import quick_exit

EXPECTED_ERRORS = (UsageError, InputError, OSError, KeyError, ValueError)
"""Failures reported as one line; anything else is a bug and keeps its traceback."""


def make_app(name: str, help: str, parts: Sequence[typer.Typer]) -> typer.Typer:
    """A typer app made of the commands of ``parts`` (each command module's own ``app``)."""
    app = typer.Typer(
        name=name,
        help=help,
        cls=AppGroup,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )

    def root() -> None:
        # Weight-loading progress bars are noise on a command line (results go to stdout, notes to stderr).
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

    root.__doc__ = f"Run ``{name} COMMAND --help`` for each command's options."
    app.callback()(root)
    for part in parts:
        _guard(part)
        app.add_typer(part)
    return app


class AppGroup(TyperGroup):
    """An app's root: a command line in an old spelling is rewritten to the new one, with a note per
    old spelling (:mod:`mmsoc.core.spellings`), before click parses it."""

    def main(self, args: Sequence[str] | None = None, *rest: Any, **settings: Any) -> Any:
        rewritten = rewrite(self.name or "", self, sys.argv[1:] if args is None else args)
        for line in rewritten.notes:
            typer.echo(line, err=True)
        return super().main(rewritten.args, *rest, **settings)


class ConfigCommand(TyperCommand):
    """A command with ``--config FILE`` (:mod:`mmsoc.core.config_file`) besides its own options."""

    def __init__(self, *args: Any, **settings: Any) -> None:
        super().__init__(*args, **settings)
        self.params.append(_config_option())


def _read_config_file(ctx: typer.Context, value: Path | None) -> None:
    """The ``--config`` callback (eager, so it runs before every other parameter takes its value): the
    file's values become the parameters' defaults, and the command line still wins."""
    if value is None or ctx.resilient_parsing:
        return
    assert isinstance(ctx.command, TyperCommand)
    try:
        defaults = defaults_from(value, ctx.command, read_config(value))
    except EXPECTED_ERRORS as err:
        typer.echo(f"error: {error_message(err)}", err=True)
        raise typer.Exit(2) from None
    ctx.default_map = {**(ctx.default_map or {}), **defaults}


@functools.cache
def _config_option() -> TyperOption:
    """The ``--config`` option, as typer builds it (so help and errors look like every other option's)."""
    probe = typer.Typer(add_completion=False)

    @probe.command()
    def options(
        config: Annotated[
            Path | None,
            option(
                "--config",
                metavar="FILE",
                is_eager=True,
                expose_value=False,
                callback=_read_config_file,
            ),
        ] = None,
    ) -> None:
        """Only here to have typer build the option."""

    (config,) = typer.main.get_command(probe).params
    assert isinstance(config, TyperOption)
    return config


def _guard(app: typer.Typer) -> None:
    """Wrap every command of ``app`` (and of its sub-apps) in the error policy, and give it ``--config``."""
    for command in app.registered_commands:
        command.cls = ConfigCommand if command.cls in (None, TyperCommand) else command.cls
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
