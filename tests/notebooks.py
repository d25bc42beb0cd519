"""Execute a notebook of notebooks/ with its parameter cell rewritten."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def execute_notebook(name: str, workdir: Path, replacements: dict[str, str], timeout: int = 600):
    """Run ``notebooks/<name>`` in ``workdir`` after applying ``replacements`` to its parameter cell
    (the first code cell, which starts with ``# Parameters``); return the executed notebook."""
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    assert all(not cell.get("outputs") for cell in nb.cells if cell.cell_type == "code"), "stored with outputs"
    params = next(cell for cell in nb.cells if cell.cell_type == "code")
    assert params.source.startswith("# Parameters")
    for old, new in replacements.items():
        assert old in params.source, f"{old!r} not in the parameter cell"
        params.source = params.source.replace(old, new)
    NotebookClient(nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(workdir)}}).execute()
    return nb


def printed(nb) -> str:
    """Everything the notebook's cells printed or displayed as text."""
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", ""))
            parts.append(out.get("data", {}).get("text/plain", ""))
            parts.append(out.get("data", {}).get("text/markdown", ""))
    return "".join(parts)
