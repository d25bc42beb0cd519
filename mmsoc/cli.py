"""The ``mmsoc`` command: MM-Soc evaluation, scoring, reports and fine-tuning."""

from __future__ import annotations

from mmsoc.cli_base import make_app, run_cli

app = make_app("mmsoc", "Evaluate multimodal language models on the ten MM-Soc social-media tasks.")


def main() -> None:
    """Console entry point."""
    run_cli(app)


# Each command module registers its commands on ``app`` when imported.
from mmsoc.commands import data, misc, tasks  # noqa: E402,F401
from mmsoc.commands import eval as _eval  # noqa: E402,F401
from mmsoc.commands import finetune as _finetune  # noqa: E402,F401
from mmsoc.commands import report as _report, score as _score  # noqa: E402,F401
