"""End-of-run summaries on the console: names printed whole, each headline metric with its 95% interval.

A rich table squeezed into a narrow terminal cuts its cells with an ellipsis
(``supertweeteval/tweet…``); these tables never do: the first column (the names) is as wide as its
longest name and never wraps, and the other columns fold onto a second line when the terminal is too
narrow. The intervals are the ones the run already wrote (``ci95`` of ``metrics.json``, see
``mmsoc.runners.summary``, none from fewer than ten items); none is recomputed here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table


def interval_text(interval: Sequence[float | None] | None, digits: int = 4) -> str:
    """``[0.1234, 0.5678]``; ``-`` without an interval (or with an undefined end: None or NaN)."""
    if not interval or any(end is None or not math.isfinite(end) for end in interval):
        return "-"
    low, high = interval
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def _min_widths(headers: Sequence[str], rows: Sequence[Sequence[str]], names: int) -> list[int]:
    """Per column the narrowest it may be: the whole name in column ``names``, the longest word elsewhere."""
    widths = []
    for k, header in enumerate(headers):
        texts = (header, *(row[k] for row in rows))
        widths.append(max(len(t) if k == names else max((len(w) for w in t.split()), default=0) for t in texts))
    return widths


def whole_names_table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], title: str | None = None, names: int = 0
) -> Table:
    """A rich table whose column ``names`` is never cut nor wrapped and whose other cells wrap between words
    (a figure is never split); every header, cell and the title are plain text (no rich markup is read)."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(title) if title else None)
    for k, (header, width) in enumerate(zip(headers, _min_widths(headers, rows, names))):
        table.add_column(Text(header), no_wrap=k == names, min_width=width, overflow="fold")
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    return table


def print_whole(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    console: Console | None = None,
    title: str | None = None,
    names: int = 0,
) -> None:
    """``whole_names_table`` where the console is wide enough for it, else one plain line per row
    (``name: header value; ...``), so that nothing is ever cut."""
    from rich.console import Console

    console = console or Console()
    borders = 3 * len(headers) + 1
    if sum(_min_widths(headers, rows, names)) + borders <= console.width:
        console.print(whole_names_table(headers, rows, title, names))
        return
    lines = [title] if title else []
    for row in rows:
        rest = "; ".join(f"{h} {cell}" for k, (h, cell) in enumerate(zip(headers, row)) if k != names)
        lines.append(f"{row[names]}: {rest}")
    console.out("\n".join(lines), highlight=False)


def undefined_text(key: str, why: str | None) -> str:
    """``auc undefined: the references hold one class`` (``auc undefined`` without a reason)."""
    return f"{key} undefined" + (f": {why}" if why else "")


def headline_text(headline: str, entry: dict[str, Any]) -> str:
    """``macro_f1 0.4321 [0.4012, 0.4655]`` (``± std`` over seeds where there are several), or why the headline
    is undefined (``undefined_text``); in place of the interval, why there is none (``ci95_note``: too few items)."""
    value = entry["metrics"].get(headline)
    if value is None:
        return undefined_text(headline, entry.get("undefined", {}).get(headline))
    spread = entry.get("metrics_std", {}).get(headline)
    shown = f"{headline} {value:.4f}" + (f" ± {spread:.4f}" if spread is not None else "")
    if entry.get("ci95_note"):
        return f"{shown} ({entry['ci95_note']})"
    interval = (entry.get("ci95") or {}).get(headline)
    return f"{shown} {interval_text(interval)}" if interval else shown


EVAL_HEADERS = ("task", "n", "success", "lenient success", "headline [95% interval]")


def eval_summary_rows(metrics: dict[str, dict[str, Any]]) -> list[tuple[str, ...]]:
    """``mmsoc eval``'s summary (``EVAL_HEADERS``): per task n, success rates, the headline with its interval."""
    from mmsoc.tasks import get_task

    rows: list[tuple[str, ...]] = []
    for task, entry in metrics.items():
        success = entry["success_rate"]
        rows.append(
            (
                task,
                str(entry["n"]),
                "-" if success is None else f"{success:.3f}",
                f"{entry['success_rate_lenient']:.3f}",
                headline_text(get_task(task).headline, entry),
            )
        )
    return rows


def print_eval_summary(metrics: dict[str, dict[str, Any]], console: Console | None = None) -> None:
    """Print ``eval_summary_rows`` as a table (``print_whole``: to stdout unless ``console`` says otherwise)."""
    print_whole(EVAL_HEADERS, eval_summary_rows(metrics), console)


def values_line(
    metrics: Mapping[str, object],
    intervals: dict[str, Sequence[float | None]] | None = None,
    undefined: Mapping[str, str] | None = None,
) -> str:
    """``key=value`` for each metric, its 95% interval beside it where ``intervals`` has one (``mmsoc score``:
    the ``intervals.values`` of score_info.json); then each metric without a value and why (``undefined``, by
    key): ``; auc undefined: the references hold one class``."""
    parts, missing = [], []
    for key, value in metrics.items():
        if value is None:
            missing.append(undefined_text(key, (undefined or {}).get(key)))
            continue
        shown = f"{key}={value:.4f}" if isinstance(value, float) else f"{key}={value}"
        interval = (intervals or {}).get(key)
        parts.append(f"{shown} {interval_text(interval)}" if interval else shown)
    return "; ".join([" ".join(parts), *missing])
