"""The probe notebook runs on the sample and shows the bias and its removal."""

import json

from notebooks import execute_notebook, printed


def test_probe_notebook_executes(tmp_path):
    nb = execute_notebook("desiq_probe.ipynb", tmp_path, {'PROBE = "embed-linear"': 'PROBE = "tfidf-linear"'})
    text = printed(nb)
    assert "original A4: accuracy" in text and "DeSIQ_d" in text
    report = json.loads((tmp_path / "runs/probe-notebook/probe.json").read_text())
    assert {r["data"] for r in report["results"]} == {"original", "desiq_d", "desiq_s"}
    assert all(
        r["verdict"].startswith(("above chance", "at chance", "negligible", "below chance")) for r in report["results"]
    )
    assert (tmp_path / "runs/probe-notebook/tsne.png").exists()
