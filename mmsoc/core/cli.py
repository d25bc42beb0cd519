"""What both command-line apps share: how an app is assembled, one error policy, common options.

Conventions of every command: ``--data`` names a dataset (a folder in the suite's layout, a single
file where the command reads one, or ``sample`` for the embedded sample); ``--out`` is where results
go; ``--config FILE`` gives any of a command's options from a YAML or JSON file (the command line
wins); results and tables are printed to stdout, progress and notes ("wrote ...") to stderr. Bad input
ends in one line ``error: ...`` on stderr and exit status 2, never a traceback; a run that ended without doing what
it was asked (:class:`~mmsoc.core.io.RunFailed`) in one such line and exit status 1. Before a command runs, the
output guard (:mod:`mmsoc.core.outputs`) refuses an output that would overwrite or delete one of its inputs.
A command line in an old spelling (:mod:`mmsoc.core.spellings`) still runs, with a note, for one release.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

# typer parses with the click it vendors (``typer.core`` imports ``typer._click``): its errors are these
from typer._click import Context
from typer._click.exceptions import BadParameter, MissingParameter, NoArgsIsHelpError, NoSuchOption
from typer._click.exceptions import UsageError as ClickUsageError
from typer.core import TyperCommand, TyperGroup, TyperOption

from mmsoc.core.config_file import defaults_from, read_config
from mmsoc.core.extras import missing_extra
from mmsoc.core.io import InputError, RunFailed, UsageError
from mmsoc.core.names import shown
from mmsoc.core.options import option
from mmsoc.core.outputs import Table, Writes, guard
from mmsoc.core.registry import nearest, unknown_message
from mmsoc.core.spellings import rewrite
from mmsoc.core.startup import quick_exit

EXPECTED_ERRORS = (UsageError, InputError, OSError, KeyError, ValueError)
"""Failures reported as one line; anything else is a bug and keeps its traceback."""


WRITES_KEY = "mmsoc.writes"
"""Where the app's table of what each command reads and writes waits for its commands (``Context.meta``)."""


def make_app(name: str, help: str, parts: Sequence[typer.Typer], writes: Table) -> typer.Typer:
    """A typer app made of the commands of ``parts`` (each command module's own ``app``); ``writes``: what
    each command reads and writes, checked by the output guard before it runs (:mod:`mmsoc.core.outputs`)."""
    app = typer.Typer(
        name=name,
        help=help,
        cls=AppGroup,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )

    def root(ctx: typer.Context) -> None:
        # Weight-loading progress bars are noise on a command line (results go to stdout, notes to stderr).
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        ctx.meta[WRITES_KEY] = writes

    root.__doc__ = f"Run ``{name} COMMAND --help`` for each command's options."
    app.callback()(root)
    for part in parts:
        _guard(part)
        app.add_typer(part)
    return app


class AppGroup(TyperGroup):
    """An app's root: a command line in an old spelling is rewritten to the new one, with a note per
    old spelling (:mod:`mmsoc.core.spellings`), before click parses it; a usage error (a bad value, a
    missing or unknown option, of this group or of any command under it) is one line ``error: ...``."""

    def main(self, args: Sequence[str] | None = None, *rest: Any, **settings: Any) -> Any:
        rewritten = rewrite(self.name or "", self, sys.argv[1:] if args is None else args)
        for line in rewritten.notes:
            typer.echo(line, err=True)
        return super().main(rewritten.args, *rest, **settings)

    def make_context(self, *args: Any, **extra: Any) -> Context:
        with _one_line_usage_errors():
            return super().make_context(*args, **extra)

    def invoke(self, ctx: Context) -> Any:
        with _one_line_usage_errors():
            return super().invoke(ctx)


@contextlib.contextmanager
def _one_line_usage_errors() -> Iterator[None]:
    try:
        yield
    except NoArgsIsHelpError:
        raise
    except ClickUsageError as err:
        typer.echo(f"error: {usage_message(err)}", err=True)
        raise typer.Exit(2) from None


def usage_message(err: ClickUsageError) -> str:
    """A click usage error as one line: the option, the value given, and what it takes (the nearest first)."""
    if isinstance(err, MissingParameter):
        choices = _choices(err.param)
        expected = err.param_type or (err.param.param_type_name if err.param is not None else "parameter")
        take = f"; choose {', '.join(choices)}" if choices else ""
        return f"missing {expected} {_flag(err)}{take}" + (f" ({one_line(err.message)})" if err.message else "")
    if isinstance(err, BadParameter):
        value, choices = _given(err), _choices(err.param)
        if value is not None and choices:
            close = nearest(value, choices)
            return f"{_flag(err)} {shown(value)}: choose {', '.join([*close, *(c for c in choices if c not in close)])}"
        return f"{_flag(err)}{f' {shown(value)}' if value is not None else ''}: {one_line(err.message)}"
    if isinstance(err, NoSuchOption) and err.ctx is not None:
        params = err.ctx.command.get_params(err.ctx)
        known = [opt for param in params for opt in (*param.opts, *param.secondary_opts) if opt.startswith("-")]
        return unknown_message("option", err.option_name, known, where=f"of {err.ctx.command_path}")
    return one_line(err.format_message())


def _flag(err: BadParameter) -> str:
    """The option as typed (its long flag), or an argument's name."""
    if err.param_hint is not None:
        return err.param_hint if isinstance(err.param_hint, str) else " / ".join(err.param_hint)
    if err.param is None:
        return "value"
    if err.param.param_type_name == "argument":
        return (err.param.metavar or err.param.name or "argument").upper()
    return max(err.param.opts, key=lambda opt: (opt.startswith("--"), len(opt)))


def _choices(param: Any) -> list[str]:
    """The values a choice option (an Enum or a Literal) takes, as typed; none for any other option."""
    desc = getattr(param, "type_descriptor", None)
    if desc is None or not desc.is_choice or desc.choices is None:
        return []
    return [str(c.value) if isinstance(c, Enum) else str(c) for c in desc.choices]


def _given(err: BadParameter) -> str | None:
    """The value typer could not convert (from the validation error behind ``err``), where it says."""
    errors = getattr(err.__cause__, "errors", None)
    found = errors()[0].get("input") if callable(errors) and errors() else None
    return str(found) if isinstance(found, (str, int, float)) else None


class ConfigCommand(TyperCommand):
    """A command with ``--config FILE`` (:mod:`mmsoc.core.config_file`) besides its own options, whose outputs
    are guarded (:mod:`mmsoc.core.outputs`) before it runs."""

    def __init__(self, *args: Any, **settings: Any) -> None:
        super().__init__(*args, **settings)
        self.params.append(_config_option())

    def invoke(self, ctx: Context) -> Any:
        table = ctx.meta.get(WRITES_KEY)
        if isinstance(table, Table) and not ctx.resilient_parsing:
            try:
                guard(table, table.rows.get(command_line(ctx), Writes()), ctx.params, self.flag)
            except EXPECTED_ERRORS as err:
                echo_error(err)
                raise typer.Exit(2) from None
        return super().invoke(ctx)

    def flag(self, name: str) -> str:
        """The parameter ``name`` as typed: its long flag, or an argument's name in capitals."""
        for param in self.params:
            if param.name == name:
                flags = [opt for opt in param.opts if opt.startswith("--")]
                return flags[0] if flags else (param.metavar or name).upper()
        return name


def command_line(ctx: Context) -> str:
    """The command a context runs, as typed after the app's name: ``mmsoc arena pair``."""
    names: list[str] = []
    while ctx.parent is not None:
        names.append(ctx.info_name or "")
        ctx = ctx.parent
    return " ".join([ctx.command.name or "", *reversed(names)])


def _read_config_file(ctx: typer.Context, value: Path | None) -> None:
    """The ``--config`` callback (eager, so it runs before every other parameter takes its value): the
    file's values become the parameters' defaults, and the command line still wins."""
    if value is None or ctx.resilient_parsing:
        return
    assert isinstance(ctx.command, TyperCommand)
    try:
        defaults = defaults_from(value, ctx.command, read_config(value))
    except EXPECTED_ERRORS as err:
        echo_error(err)
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
        except RunFailed as err:
            typer.echo(f"error: {error_message(err)}", err=True)
            raise typer.Exit(1) from None
        except EXPECTED_ERRORS as err:
            echo_error(err)
            raise typer.Exit(2) from None
        except ModuleNotFoundError as err:
            typer.echo(f"error: {missing_extra(err)}", err=True)
            raise typer.Exit(2) from None

    guarded.__guarded__ = True  # type: ignore[attr-defined]
    return guarded


def commands() -> typer.Typer:
    """The ``app`` a command module registers its commands on."""
    return typer.Typer(add_completion=False, pretty_exceptions_enable=False)


def echo_error(err: BaseException) -> None:
    """``error: ...`` in one line on stderr, the last; the error's ``detail`` (a UsageError's), where it has
    one, on the line before."""
    detail = getattr(err, "detail", None)
    if detail:
        typer.echo(one_line(detail), err=True)
    typer.echo(f"error: {error_message(err)}", err=True)


def error_message(err: BaseException) -> str:
    """The error as one line (a library's message over several lines is joined)."""
    return one_line(str(err.args[0]) if isinstance(err, KeyError) and err.args else str(err))


def one_line(text: str) -> str:
    """``text`` over several lines joined into one."""
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def run_cli(app: typer.Typer) -> None:
    """Run a typer app; an expected failure exits 2 with its message on one line (commands are
    guarded by ``make_app``; this catches what escapes outside them, e.g. while parsing)."""
    quick_exit()
    try:
        app()
    except EXPECTED_ERRORS as err:
        echo_error(err)
        sys.exit(2)
    except ModuleNotFoundError as err:
        print(f"error: {missing_extra(err)}", file=sys.stderr)
        sys.exit(2)


def note(message: str) -> None:
    """A note for the user (progress, where files went): stderr, so stdout stays pipeable."""
    typer.echo(message, err=True)
