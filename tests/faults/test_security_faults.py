"""An attacker's files: a pickle planted in a checkpoint folder and hostile text in a report.
The planted pickle would create a file when unpickled; the test asserts the file never appears.

Also in-process, in the default run: tests/test_finetune_resume.py (resume refuses pickles), tests/test_training.py
(pickles found by name and by content without being loaded) and tests/test_report.py (hostile text escaped).
"""

from __future__ import annotations

import html
import json
import pickle
import shutil
from pathlib import Path

import pytest

from .harness import FINETUNE, run

pytestmark = pytest.mark.slow  # long end-to-end runs: `pytest -m slow`


class _CreatesFile:
    """Unpickling this calls ``open(path, "w")``: the pickle names only ``builtins.open``, so any process can
    unpickle it."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


@pytest.mark.parametrize("planted", ["custom_checkpoint_0.pkl", "optimizer.safetensors"])
def test_a_pickle_planted_in_a_checkpoint_is_never_executed(planted, adapter, tiny_dirs, scratch, cache, tmp_path):
    out = shutil.copytree(adapter, tmp_path / "adapter")
    marker = tmp_path / "pwned"
    payload = pickle.dumps(_CreatesFile(marker), protocol=4)
    pickle.loads(pickle.dumps(_CreatesFile(tmp_path / "control"), protocol=4))
    assert (tmp_path / "control").exists()  # the payload does run when unpickled
    checkpoints = [p for p in (out / "checkpoints").iterdir() if p.is_dir()]
    assert checkpoints
    for folder in checkpoints:  # every checkpoint, and every pickle already there, carries the payload
        for path in [folder / planted, *folder.glob("*.pkl")]:
            path.write_bytes(payload)
    result = run(
        "mmsoc", *FINETUNE, "--model", tiny_dirs["llava"], "--out", str(out), "--resume", cwd=scratch, cache=cache
    )
    assert not marker.exists(), "the planted pickle ran"
    line = result.error_line()
    assert planted in line and "pickle" in line


HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'
FOLDER = "dq<img src=x onerror=alert(2)> [a](javascript:alert(3))"
"""A run-folder name (no slash): shown where two runs of one model are told apart by their folders."""


def test_hostile_text_in_a_run_is_escaped_in_the_report(scratch, cache, tmp_path):
    """Item 3: the fields the report shows (the model name, the run-folder name, the reference and the
    prediction of a generation task's examples) reach report.md and report.html as text, never as markup a
    viewer would run; report.md renders (CommonMark) as exactly that text, without entities or control bytes."""
    from report_data import check_markdown

    run_dir = tmp_path / "run"
    result = run(
        "mmsoc",
        "eval",
        "--task",
        "image_description",
        "--model",
        "random",
        "--greedy",
        "--limit",
        "4",
        "--no-progress",
        "--out",
        str(run_dir),
        cwd=scratch,
        cache=cache,
    )
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in (run_dir / "predictions.jsonl").read_text().splitlines()]
    for k, row in enumerate(rows):  # every item: the report shows the first three every run answered
        row["reference"] = f"reference {k} {HOSTILE}"
        row["raw"] = row["parsed"] = f"said {k} {HOSTILE} \x1b[31m\x07"
        row["valid"] = row["strict_valid"] = True
    (run_dir / "predictions.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    config = json.loads((run_dir / "config.json").read_text())
    config["model"] = HOSTILE
    (run_dir / "config.json").write_text(json.dumps(config))
    twin = shutil.copytree(run_dir, tmp_path / FOLDER)  # the same model twice: runs named by their folders
    result = run(
        "mmsoc",
        "report",
        str(run_dir),
        str(twin),
        "--out",
        str(tmp_path / "report"),
        "--fast-metrics",
        "--bootstrap",
        "10",
        cwd=scratch,
        cache=cache,
    )
    assert result.returncode == 0, result.stderr
    md = (tmp_path / "report" / "report.md").read_text()
    shown = (f"{HOSTILE} ({FOLDER})", f"{HOSTILE} (run)", f"reference 0 {HOSTILE}", f"said 2 {HOSTILE}")
    check_markdown(md, shown)
    page = (tmp_path / "report" / "report.html").read_text()
    # the page has scripts and images of its own: the hostile ones must not be among them
    assert "<script>alert" not in page and "<img src=x" not in page and "onerror=alert(1)>" not in page
    assert "&lt;script&gt;alert" in page and html.escape(f"said 2 {HOSTILE}") in page
