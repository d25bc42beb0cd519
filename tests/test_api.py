"""The Python API page (docs/python-api.md) runs as written: `mmsoc.evaluate` and `desiq.probe`."""

from __future__ import annotations

import doctest
import subprocess
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "python-api.md"


def test_the_api_page_runs_as_written(monkeypatch, tmp_path):
    monkeypatch.setenv("MMSOC_CACHE", str(tmp_path / "cache"))
    result = doctest.testfile(str(PAGE), module_relative=False, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted >= 8 and result.failed == 0


def test_import_mmsoc_exposes_the_api_without_loading_the_commands():
    code = (
        "import sys, mmsoc, desiq; print(callable(mmsoc.evaluate), callable(desiq.probe), 'mmsoc.cli' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["True", "True", "False"], done.stderr
