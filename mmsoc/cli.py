"""The ``mmsoc`` command: MM-Soc evaluation, scoring, reports and fine-tuning."""

from __future__ import annotations

import typer

from mmsoc.errors import run_cli

app = typer.Typer(
    name="mmsoc",
    help="Evaluate multimodal language models on the ten MM-Soc social-media tasks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Run ``mmsoc COMMAND --help`` for each command's options."""


def main() -> None:
    """Console entry point."""
    run_cli(app)


# Each command module registers its commands on ``app`` when imported.
from mmsoc.commands import misc  # noqa: E402,F401
from mmsoc.commands import eval as _eval  # noqa: E402,F401
from mmsoc.commands import data, tasks  # noqa: E402,F401
from mmsoc.commands import finetune as _finetune  # noqa: E402,F401
from mmsoc.commands import report as _report, score as _score  # noqa: E402,F401
