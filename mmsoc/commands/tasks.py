"""``mmsoc tasks``: the task table of a suite."""

from __future__ import annotations

from mmsoc.commands import options
from mmsoc.core.cli import commands

app = commands()

MAX_LABELS = 6
"""Labels listed in full up to this many; more are counted."""


@app.command("tasks")
def tasks(suite: options.Suite = "mmsoc") -> None:
    """List a suite's tasks: name, type (kind), category, labels, headline metric and every metric reported."""
    from rich.console import Console

    from mmsoc.metrics.registry import metric_keys
    from mmsoc.runners.console import print_whole
    from mmsoc.tasks import get_task, kind_of, task_ids
    from mmsoc.tasks.registry import short_name

    specs = [get_task(task) for task in task_ids(suite)]
    rows = []
    for spec in specs:
        labels = ", ".join(spec.labels) if len(spec.labels) <= MAX_LABELS else f"{len(spec.labels)} labels"
        rows.append(
            (
                short_name(spec.id),
                spec.dataset,
                kind_of(spec).task_type or spec.kind,
                spec.category or "-",
                labels or "-",
                spec.headline,
                ", ".join(metric_keys(spec.kind)),
            )
        )
    headers = ("task", "dataset", "type", "category", "labels", "headline", "metrics")
    print_whole(headers, rows, Console(width=200), title=f"{suite} tasks ({len(specs)})")
