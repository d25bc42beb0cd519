"""The report's "what ran" block: each run's provenance.json (its latest record), folded away, and a warning
for each library version or model revision that differs between the runs compared side by side."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mmsoc.core.provenance import differences, read_records
from mmsoc.report.blocks import Block, Details, Heading, Table, Text
from mmsoc.report.sources import Sources

COLUMNS = ("run", "date", "mmsoc", "commit", "torch", "transformers", "python", "device", "model", "revision")


def what_ran(sources: Sources) -> dict[str, Any]:
    """``runs``: run name -> its latest provenance record (runs without one left out); ``warnings``."""
    folders: list[tuple[str, Path]] = [(run.name, run.path) for run in sources.mmsoc]
    folders += [(run.name, run.path) for run in sources.desiq]
    named = {name: read_records(path) for name, path in folders}
    return {"runs": {name: records[-1] for name, records in named.items() if records}, "warnings": differences(named)}


def _row(name: str, entry: dict[str, Any]) -> list[str]:
    versions, model = entry.get("versions") or {}, entry.get("model") or {}
    return [
        name,
        str(entry.get("date") or ""),
        str(versions.get("mmsoc", "")),
        str(entry.get("git_commit") or ""),
        str(versions.get("torch", "not installed")),
        str(versions.get("transformers", "not installed")),
        str(entry.get("python") or ""),
        str((entry.get("hardware") or {}).get("device") or ""),
        str(model.get("repo") or model.get("folder") or model.get("spec") or ""),
        str(model.get("revision") or model.get("fingerprint") or ""),
    ]


def what_ran_blocks(data: dict[str, Any]) -> list[Block]:
    """A heading, one line per warning, and the runs' records as a folded table (nothing without records)."""
    if not data["runs"]:
        return []
    blocks: list[Block] = [Heading(2, "What ran")]
    blocks += [Text(f"Warning: the runs differ in {warning}.") for warning in data["warnings"]]
    rows = [_row(name, entry) for name, entry in data["runs"].items()]
    blocks.append(Details("what ran (provenance.json of each run)", Table("What ran", list(COLUMNS), rows)))
    return blocks
