"""What both command-line apps share: how an app is made and how bad input is reported."""

from __future__ import annotations

import sys

import typer

from mmsoc.io import InputError


def make_app(name: str, help: str) -> typer.Typer:
    """A typer app that lists its commands when called bare and shows plain errors."""
    app = typer.Typer(name=name, help=help, no_args_is_help=True, add_completion=False,
                      pretty_exceptions_enable=False)

    def root() -> None:
        pass

    root.__doc__ = f"Run ``{name} COMMAND --help`` for each command's options."
    app.callback()(root)
    return app


def run_cli(app: typer.Typer) -> None:
    """Run a typer app; bad input (InputError, FileNotFoundError, ValueError) exits 2 with its message."""
    try:
        app()
    except (InputError, FileNotFoundError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
