"""``mmsoc tasks``: the task table."""

from __future__ import annotations

from mmsoc.core.cli import commands

app = commands()


@app.command("tasks")
def tasks() -> None:
    """List the MM-Soc tasks: id, dataset, kind, number of labels and headline metric."""
    from rich.console import Console
    from rich.table import Table

    from mmsoc.tasks import get_task, task_ids

    table = Table(title="MM-Soc tasks")
    table.add_column("id", no_wrap=True)
    for name in ("dataset", "kind", "labels", "headline metric"):
        table.add_column(name)
    for spec in map(get_task, task_ids("mmsoc")):
        table.add_row(spec.id, spec.dataset, spec.kind, str(len(spec.labels)) if spec.labels else "-", spec.headline)
    Console().print(table)
