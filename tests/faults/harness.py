"""How the fault-injection suite runs the commands it attacks: real subprocesses of ``mmsoc``/``desiq``.

Every command runs as its own process, with the code under test first on ``PYTHONPATH`` (this
checkout; ``MMSOC_FAULTS_CODE=DIR`` points it at another checkout, e.g. a previous release, to show
which faults that one has) and a scratch folder as working directory, so nothing of the caller's
machine state leaks in: no GPU, one thread, the hub offline, the mmsoc cache in the test's folder.
A run can be killed at a chosen point (``killpoint.py``) or paused (SIGSTOP) to hold its folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CODE = os.environ.get("MMSOC_FAULTS_CODE") or str(REPO)
KILLPOINT = Path(__file__).with_name("killpoint.py")
FINETUNE = [
    "finetune",
    "--task",
    "hate",
    "--limit",
    "4",
    "--batch-size",
    "2",
    "--micro-batch-size",
    "2",
    "--save-every",
    "1",
    "--max-steps",
    "2",
    "--target-modules",
    "q_proj,v_proj",
    "--no-progress",
]
"""A fine-tuning run of two steps with a checkpoint after each (add --model and --out)."""
TEMPORARY = (".tmp", ".partial")
"""Endings of the temporaries a writer builds beside its target (``.NAME.<pid>-<random>.tmp``)."""


def base_env(cache: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": CODE,
        "CUDA_VISIBLE_DEVICES": "",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "MMSOC_CACHE": str(cache),
        "PYTHONHASHSEED": "0",
        "TOKENIZERS_PARALLELISM": "false",
    }


@dataclass
class Result:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str

    @property
    def killed(self) -> bool:
        return self.returncode == -9

    def error_line(self) -> str:
        """The one ``error: ...`` line a failed command ends with; fails (showing stderr) unless that is
        how it ended: exit status 2, no traceback, exactly one error line, and it is the last line."""
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        assert self.returncode == 2, f"exit status {self.returncode}, expected 2:\n{self.stderr[-3000:]}"
        assert "Traceback" not in self.stderr, self.stderr[-3000:]
        errors = [line for line in lines if line.startswith("error: ")]
        assert len(errors) == 1 and lines[-1] == errors[0], self.stderr[-3000:]
        return errors[0]


def run(
    prog: str,
    *args: str,
    cwd: Path,
    cache: Path,
    kill: str | None = None,
    count: Path | None = None,
    timeout: float = 600,
    extra_env: dict[str, str] | None = None,
) -> Result:
    """Run ``prog ARGS`` to its end (or its kill) and return what it said."""
    env = base_env(cache) | (extra_env or {})
    if kill is not None:
        env["FAULT_KILL"] = kill
    if count is not None:
        env["FAULT_COUNT"] = str(count)
    argv = [sys.executable, *([str(KILLPOINT)] if kill or count else ["-m"]), prog, *args]
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    return Result([prog, *args], done.returncode, done.stdout, done.stderr)


def start(prog: str, *args: str, cwd: Path, cache: Path) -> subprocess.Popen:
    """Start ``prog ARGS`` in the background."""
    return subprocess.Popen(
        [sys.executable, "-m", prog, *args],
        cwd=cwd,
        env=base_env(cache),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def files(folder: Path, skip: tuple[str, ...] = ()) -> dict[str, bytes]:
    """Relative path -> bytes of every file under ``folder`` (names in ``skip`` left out)."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name not in skip
    }


def temporaries(folder: Path) -> list[Path]:
    """Temporaries (``.NAME....tmp`` files, ``.NAME....partial`` folders) anywhere under ``folder``."""
    return sorted(p for p in folder.rglob(".*") if p.name.endswith(TEMPORARY))


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
