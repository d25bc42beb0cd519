"""The Dockerfile's rules: a pinned base image, the lock, a user without root, the venv on PATH, the hub
cache as a volume, a .dockerignore that keeps local environments and runs out. Built where a builder is."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined, comments left out."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return [(line.split(maxsplit=1)[0].upper(), line.split(maxsplit=1)[1]) for line in lines]


def env() -> dict[str, str]:
    pairs = [re.findall(r"(\w+)=(\S+)", args) for op, args in instructions() if op == "ENV"]
    return dict(pair for found in pairs for pair in found)


def test_the_base_image_is_pinned_to_a_full_version():
    (base,) = [args for op, args in instructions() if op == "FROM"]
    assert re.fullmatch(r"[\w./-]+:\d+\.\d+\.\d+[\w.-]*(@sha256:[0-9a-f]{64})?", base), base


def test_it_installs_every_extra_at_the_locked_versions():
    runs = " ".join(args for op, args in instructions() if op == "RUN")
    assert 'pip install -c requirements.lock ".[all]"' in runs
    copied = " ".join(args for op, args in instructions() if op == "COPY")
    assert "requirements.lock" in copied


def test_it_runs_as_a_user_without_root_after_installing():
    ops = instructions()
    users = [i for i, (op, _) in enumerate(ops) if op == "USER"]
    last_run = max(i for i, (op, _) in enumerate(ops) if op == "RUN")
    assert users and users[-1] > last_run and ops[users[-1]][1] not in ("root", "0")


def test_the_venv_is_on_path_and_the_hub_cache_is_a_volume():
    variables = env()
    venv = variables["VIRTUAL_ENV"]
    assert variables["PATH"].split(":")[0] == f"{venv}/bin"
    volumes = " ".join(args for op, args in instructions() if op == "VOLUME")
    assert variables["HF_HOME"] in volumes


def test_the_build_context_leaves_local_environments_and_runs_out():
    ignored = {line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()}
    assert {".venv", ".git", "runs"} <= ignored


def builder_available() -> bool:
    if shutil.which("docker") is None:
        return False
    return subprocess.run(["docker", "info"], capture_output=True, timeout=60).returncode == 0


@pytest.mark.slow
def test_it_builds():
    if not builder_available():
        pytest.skip("no container builder here")
    done = subprocess.run(["docker", "build", "-q", str(ROOT)], capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stderr
