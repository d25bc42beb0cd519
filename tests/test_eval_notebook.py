"""The zero-shot notebook runs on the sample (its model parameter set to a tiny LLaVA folder)."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

from tiny_models import build_tiny_llava

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "mmsoc_zero_shot.ipynb"


def test_zero_shot_notebook_executes(tmp_path):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not cell.get("outputs") for cell in nb.cells if cell.cell_type == "code"), "stored with outputs"
    params = nb.cells[1]
    assert params.source.startswith("# Parameters")
    model = build_tiny_llava(tmp_path / "llava")
    params.source = (params.source.replace('"llava-hf/llava-1.5-7b-hf"', repr(str(model)))
                     .replace('"runs/zero_shot"', repr(str(tmp_path / "runs"))).replace("LIMIT = 8", "LIMIT = 3"))
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    printed = "".join(out.get("text", "") for cell in nb.cells for out in cell.get("outputs", []))
    assert "hate" in printed and "success=" in printed
    assert (tmp_path / "runs/model/metrics.json").exists() and (tmp_path / "runs/random/metrics.json").exists()
