"""Reports over run folders: report.json, report.md and a self-contained report.html.

A report reads ``mmsoc eval`` runs (metrics recomputed from predictions.jsonl), ``desiq eval`` runs (their
metrics.json) and arena rating folders (ratings.json), side by side."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, overload

from mmsoc.core.io import write_json, write_text
from mmsoc.report.build import Report, ReportSettings, build_report
from mmsoc.report.layout import layout
from mmsoc.report.overview import add_sources
from mmsoc.report.render import to_html, to_markdown
from mmsoc.report.runs import Run, load_runs
from mmsoc.report.sources import Sources, load_sources
from mmsoc.report.what_ran import what_ran

__all__ = [
    "Report",
    "ReportSettings",
    "Run",
    "Sources",
    "build_report",
    "json_safe",
    "load_runs",
    "load_sources",
    "write_report",
]


@overload
def json_safe(obj: dict[str, Any]) -> dict[str, Any]: ...
@overload
def json_safe(obj: object) -> object: ...
def json_safe(obj: object) -> object:
    """Replace NaN and infinities (undefined metrics) with None, recursively, for strict JSON."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {key: json_safe(value) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(value) for value in obj]
    return obj


def write_report(
    run_dirs: Sequence[str | Path],
    out: str | Path,
    settings: ReportSettings,
) -> Report:
    """Load the folders, build the report and write report.json, report.md and report.html into ``out``."""
    sources = load_sources(list(run_dirs))
    if not (sources.mmsoc or sources.desiq or sources.arena):
        raise ValueError("no run folder given")
    report = build_report(sources.mmsoc, settings)
    add_sources(report.data, sources)
    report.data["what_ran"] = what_ran(sources)
    report.data = json_safe(report.data)
    blocks = layout(report)
    out = Path(out)
    write_json(out / "report.json", report.data)
    write_text(out / "report.md", to_markdown(blocks))
    write_text(out / "report.html", to_html(blocks))
    return report
