"""The ``desiq`` command: Social-IQ perturbations, DeSIQ splits, bias probes and the T5-fusion model."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="desiq",
    help="Probe video MCQA datasets (Social-IQ) for answer-only bias and build the debiased DeSIQ splits.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Run ``desiq COMMAND --help`` for each command's options."""


def main() -> None:
    app()
