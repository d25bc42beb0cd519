"""The ``desiq`` command: Social-IQ perturbations, DeSIQ splits, bias probes and the T5-fusion model."""

from __future__ import annotations

from desiq.commands import fusion, listing, llm, probe, social_iq, subset
from mmsoc.commands import report
from mmsoc.commands.writes import WRITES
from mmsoc.core.cli import make_app, run_cli

app = make_app(
    "desiq",
    "Probe video MCQA datasets (Social-IQ) for answer-only bias, build the debiased "
    "DeSIQ splits, train the T5-fusion model, and evaluate or fine-tune multimodal LLMs "
    "under every DeSIQ condition.",
    [social_iq.app, probe.app, subset.app, fusion.app, llm.app, report.app, listing.app],
    WRITES,
)


def main() -> None:
    """Console entry point."""
    run_cli(app)
