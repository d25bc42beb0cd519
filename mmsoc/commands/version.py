"""Small informational commands."""

from __future__ import annotations

import typer

from mmsoc import __version__
from mmsoc.core.cli import commands

app = commands()


@app.command()
def version() -> None:
    """Print the mmsoc version."""
    typer.echo(__version__)
