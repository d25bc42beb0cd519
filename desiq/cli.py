"""The ``desiq`` command: Social-IQ perturbations, DeSIQ splits, bias probes and the T5-fusion model."""

from __future__ import annotations

from mmsoc.cli_base import make_app, run_cli

app = make_app("desiq", "Probe video MCQA datasets (Social-IQ) for answer-only bias, build the debiased "
                        "DeSIQ splits and train the T5-fusion model.")


def main() -> None:
    """Console entry point."""
    run_cli(app)


# Each command module registers its commands on ``app`` when imported,
# imported in the order of ``desiq --help``.
from desiq.commands import social_iq  # noqa: E402,F401,I001
from desiq.commands import probe  # noqa: E402,F401,I001
from desiq.commands import fusion  # noqa: E402,F401,I001
