"""Reports over run directories: report.json, report.md and a self-contained report.html."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

from mmsoc.core.io import write_json, write_text
from mmsoc.report.build import Report, ReportSettings, build_report
from mmsoc.report.figures import length_figures, metric_figures
from mmsoc.report.render import layout, to_html, to_markdown
from mmsoc.report.runs import Run, load_runs

__all__ = ["Report", "ReportSettings", "Run", "build_report", "json_safe", "load_runs", "write_report"]


def json_safe(obj: object) -> object:
    """Replace NaN and infinities (undefined metrics) with None, recursively, for strict JSON."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {key: json_safe(value) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(value) for value in obj]
    return obj


def write_report(run_dirs: list[str | Path], out: str | Path, settings: ReportSettings,
                 advance: Callable[[str], None] = lambda _: None) -> Report:
    """Load the runs, build the report and write report.json, report.md and report.html into ``out``."""
    report = build_report(load_runs(list(run_dirs)), settings, advance)
    report.data = json_safe(report.data)
    blocks = layout(report, metric_figures(report) + length_figures(report))
    out = Path(out)
    write_json(out / "report.json", report.data)
    write_text(out / "report.md", to_markdown(blocks))
    write_text(out / "report.html", to_html(blocks))
    return report
