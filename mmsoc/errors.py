"""Turning expected failures into one clear line on stderr instead of a traceback."""

from __future__ import annotations

import sys
from collections.abc import Callable

from mmsoc.io import InputError


def run_cli(app: Callable[[], object]) -> None:
    """Run a typer app; bad input (InputError, FileNotFoundError, ValueError) exits 2 with its message."""
    try:
        app()
    except (InputError, FileNotFoundError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
