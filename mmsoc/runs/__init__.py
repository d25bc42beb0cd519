"""Evaluation runs: a config-keyed RUN_DIR with an append-only prediction log and metrics from it.

RUN_DIR/config.json    the run's identity (a different config on the same folder is refused)
RUN_DIR/predictions.jsonl  one row per (task, id, seed), appended and flushed as it is made
RUN_DIR/problems.jsonl     items skipped, with the reason
RUN_DIR/metrics.json       computed from the log alone
RUN_DIR/runtime.json       processes of the latest invocation and the predictions each made
"""

from mmsoc.runs.config import RunConfig, RunConfigError, claim_run_dir
from mmsoc.runs.loop import plan, resolve_prompts, run_eval
from mmsoc.runs.store import PREDICTIONS, read_rows
from mmsoc.runs.summary import METRICS, summarize

__all__ = ["METRICS", "PREDICTIONS", "RunConfig", "RunConfigError", "claim_run_dir", "plan", "read_rows",
           "resolve_prompts", "run_eval", "summarize"]
