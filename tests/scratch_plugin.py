"""One new module, declared as a plugin without installing anything: the module file and a ``.dist-info``
folder naming it as an entry point of ``mmsoc.plugins``, side by side in a folder put on ``PYTHONPATH``.

Tests that show what adding a thing takes (ARCHITECTURE.md, "To add ...") write the thing as one such
module and run the commands on it, in a process of their own."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

BIN = Path(sys.executable).parent


def scratch_plugin(root: Path, module: str, source: str) -> dict[str, str]:
    """Write ``source`` as ``root/MODULE.py`` declared as a plugin; the environment that sees it."""
    root.mkdir(parents=True, exist_ok=True)
    (root / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    info = root / f"{module}-0.1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[mmsoc.plugins]\n{module} = {module}\n", encoding="utf-8")
    path = os.pathsep.join(filter(None, (str(root), os.environ.get("PYTHONPATH"))))
    return {**os.environ, "PYTHONPATH": path, "COLUMNS": "2000", "NO_COLOR": "1"}


def run(env: dict[str, str], command: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """``command`` (mmsoc or desiq) with ``args``, in a process that sees the scratch plugin."""
    return subprocess.run([str(BIN / command), *map(str, args)], capture_output=True, text=True, env=env)
