"""An attacker's files: a pickle planted in a checkpoint folder (issue item 1) and hostile text in a report
(item 3). The planted pickle would create a file when unpickled; the test asserts the file never appears.

Also in-process: tests/test_finetune_resume.py (resume refuses pickles) and tests/test_training.py
(pickles found by name and by content without being loaded).
"""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import pytest

from .harness import FINETUNE, run


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


def test_hostile_text_in_a_run_is_escaped_in_the_report(scratch, cache, tmp_path):
    """Item 3: predictions, references and model names reach report.md and report.html as text, never
    as markup a viewer would run."""

    run_dir = tmp_path / "run"
    result = run(
        "mmsoc",
        "eval",
        "--task",
        "hate",
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
    for row in rows[:2]:
        row["raw"] = row["reference"] = HOSTILE
    (run_dir / "predictions.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    config = json.loads((run_dir / "config.json").read_text())
    config["model"] = HOSTILE
    (run_dir / "config.json").write_text(json.dumps(config))
    result = run(
        "mmsoc",
        "report",
        str(run_dir),
        "--out",
        str(tmp_path / "report"),
        "--no-embeddings",
        "--bootstrap",
        "10",
        cwd=scratch,
        cache=cache,
    )
    assert result.returncode == 0, result.stderr
    for name in ("report.md", "report.html"):
        text = (tmp_path / "report" / name).read_text()
        # the page has scripts and images of its own: the hostile ones must not be among them
        assert "<script>alert" not in text and "<img src=x" not in text and "onerror=alert(1)>" not in text, name
        assert "&lt;script&gt;alert" in text or "\\<script\\>alert" in text, name  # present, escaped
