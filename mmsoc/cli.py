"""The ``mmsoc`` command: MM-Soc evaluation, scoring, reports and fine-tuning."""

from __future__ import annotations

from mmsoc.commands import arena, data, finetune, listing, report, score, tasks, version
from mmsoc.commands import eval as eval_command
from mmsoc.commands.writes import WRITES
from mmsoc.core.cli import make_app, run_cli

app = make_app(
    "mmsoc",
    "Evaluate multimodal language models on the ten MM-Soc social-media tasks (11 task ids: misinformation "
    "detection runs on PolitiFact and GossipCop apart), and on SocKET and SuperTweetEval.",
    [tasks.app, data.app, eval_command.app, score.app, report.app, finetune.app, arena.app, version.app, listing.app],
    WRITES,
)


def main() -> None:
    """Console entry point."""
    run_cli(app)
