"""`mmsoc[all]` resolves on every platform users run it on, and beside vLLM, checked by resolving with uv
(no install): Linux x86_64 and aarch64, macOS arm64, Windows; and with `vllm==0.33.0` on Linux x86_64,
Python 3.12. Needs the package index; `-m "not resolve"` skips these."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
uv = pytest.importorskip("uv", reason="uv (the test extra) resolves for other platforms")
pytestmark = pytest.mark.resolve

PLATFORMS = {
    "x86_64-manylinux_2_28": True,
    "aarch64-manylinux_2_28": False,
    "aarch64-apple-darwin": False,
    "x86_64-pc-windows-msvc": True,
}
"""uv's platform name -> whether decord (wheels for Linux x86_64 and Windows only) is in the resolution."""


def resolve(platform: str, *requirements: Path) -> dict[str, str]:
    """Package -> version that `mmsoc[all]` (and ``requirements``) resolve to on ``platform``, Python 3.12."""
    command = [uv.find_uv_bin(), "pip", "compile", "pyproject.toml", *map(str, requirements), "--extra", "all"]
    command += ["--python-platform", platform, "--python-version", "3.12", "--no-header", "--no-annotate", "-q"]
    env = {**os.environ, "MACOSX_DEPLOYMENT_TARGET": "14.0"}  # the macOS version torch's arm64 wheels need
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return dict(re.findall(r"^([\w.-]+)==(\S+)", done.stdout, re.M))


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_every_extra_resolves_on_each_platform(platform):
    versions = resolve(platform)
    assert {"torch", "transformers", "av", "peft", "openai", "fastapi"} <= versions.keys()
    assert ("decord" in versions) == PLATFORMS[platform]


def test_every_extra_resolves_beside_vllm(tmp_path):
    vllm = tmp_path / "vllm.txt"
    vllm.write_text("vllm==0.33.0\n")
    versions = resolve("x86_64-manylinux_2_28", vllm)
    assert versions["vllm"] == "0.33.0" and "torch" in versions and "transformers" in versions
