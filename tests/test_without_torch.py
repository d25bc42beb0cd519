"""The core install (`pip install mmsoc`, no extras) runs the jobs that need no model.

Each command runs in a fresh interpreter in which every module an extra brings (torch, transformers,
sentence-transformers, openai, fastapi, ...: ``mmsoc.core.extras.EXTRA_OF``) cannot be imported, so these
tests say the same in the full environment as in CI's core-only one, where they run with
``--noconftest`` (the shared conftest builds tiny torch models)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mmsoc.core.extras import EXTRA_OF, missing_extra

pytestmark = pytest.mark.core
ROOT = Path(__file__).resolve().parents[1]


BLOCK = """
import sys

class Absent:  # finds every extra's module first, and has none of them
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, Absent())
"""


def run_core(app: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``app`` (mmsoc or desiq) with ``args``, every extra's modules absent."""
    code = f"BLOCKED = {sorted(EXTRA_OF)!r}\n{BLOCK}\nsys.argv[0] = {app!r}\nfrom {app}.cli import main\nmain()"
    env = {"PYTHONPATH": str(ROOT), "MMSOC_CACHE": str(cwd / "cache"), "PATH": os.environ.get("PATH", "")}
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize("probe", ["tfidf-linear", "heuristics"])
def test_the_light_probes_run_without_torch(tmp_path, probe):
    done = run_core("desiq", "probe", "--probe", probe, "--no-debiased", "--no-tsne", "--out", "probe", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "probe" / "probe.json").is_file() and (tmp_path / "probe" / "provenance.json").is_file()


def test_the_default_probe_names_the_extra_and_the_probe_that_runs_now(tmp_path):
    done = run_core("desiq", "probe", "--out", "probe", cwd=tmp_path)
    error = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert 'pip install "mmsoc[hf]"' in error and "--probe tfidf-linear" in error


def test_a_rouge_report_runs_without_torch(tmp_path):
    done = run_core(
        "mmsoc", "eval", "--model", "random", "--task", "image_description", "--fast-metrics", "--out", "run",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    done = run_core("mmsoc", "report", "run", "--fast-metrics", "--bootstrap", "20", "--out", "report", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "rougeL" in (tmp_path / "report" / "report.md").read_text()


def test_a_model_that_needs_an_extra_is_one_line(tmp_path):
    done = run_core("mmsoc", "eval", "--model", "hf:some/model", "--task", "hate", "--out", "run", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].endswith('pip install "mmsoc[hf]" (or mmsoc[all])')


def test_arena_ratings_run_without_torch(tmp_path):
    battles = [
        {
            "id": f"b{i}",
            "item": f"i{i}",
            "model_a": "x",
            "model_b": "y",
            "response_a": "a",
            "response_b": "b",
            "votes": [{"annotator": "ann", "label": "A" if i % 3 else "B", "critique": "", "time": float(i)}],
        }
        for i in range(12)
    ]
    (tmp_path / "votes.jsonl").write_text("".join(json.dumps(b) + "\n" for b in battles))
    rate = ("arena", "rate", "--votes", "votes.jsonl", "--min-annotators", "1", "--out", "r")
    done = run_core("mmsoc", *rate, cwd=tmp_path)
    assert done.returncode == 0, done.stderr


def test_a_module_no_extra_brings_stays_a_bug():
    err = ModuleNotFoundError("No module named 'nothere'", name="nothere")
    with pytest.raises(ModuleNotFoundError):
        missing_extra(err)
    assert "mmsoc[video]" in missing_extra(ModuleNotFoundError("x", name="decord.bridge"))
