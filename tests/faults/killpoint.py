"""Run a command module and SIGKILL it at a chosen point: the fault-injection suite's harness.

    python killpoint.py MODULE [ARGS...]        (e.g. ``killpoint.py desiq build --data ...``)

``FAULT_KILL`` says where the process kills itself (``kill -9`` of its own pid, so nothing of Python
runs afterwards: no ``finally``, no ``atexit``, unflushed buffers lost):

    call:N          at the Nth call of a function defined in the project's packages (mmsoc, desiq),
                    counted in every thread; with N drawn at random this is a random point of the run
    rename:GLOB:N   just before the Nth rename (``os.replace``, ``os.rename``, ``Path.replace``) onto
                    a path whose file name matches the glob GLOB

``FAULT_COUNT=FILE`` writes, at exit, how many project calls and renames the run made (JSON), to
draw kill points from. The module runs as ``python -m MODULE`` would, in this process; the harness
imports nothing of the project itself, so it drives any version of the code on ``PYTHONPATH``.
"""

from __future__ import annotations

import atexit
import fnmatch
import importlib.util
import json
import os
import runpy
import signal
import sys
import threading
from pathlib import Path

PACKAGES = ("mmsoc", "desiq")


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _package_dirs() -> tuple[str, ...]:
    dirs = []
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            dirs += [str(Path(d).resolve()) + os.sep for d in spec.submodule_search_locations]
    return tuple(dirs)


def main() -> None:
    module, args = sys.argv[1], sys.argv[2:]
    kind, _, rest = os.environ.get("FAULT_KILL", "").partition(":")
    counts = {"calls": 0, "renames": 0}
    if kind == "call" or os.environ.get("FAULT_COUNT"):
        target = int(rest) if kind == "call" else -1
        roots = _package_dirs()

        def profile(frame, event, arg):
            if event == "call" and frame.f_code.co_filename.startswith(roots):
                counts["calls"] += 1
                if counts["calls"] == target:
                    _die()

        sys.setprofile(profile)
        threading.setprofile(profile)
    pattern, limit = "*", -1
    if kind == "rename":
        pattern, _, n = rest.rpartition(":")
        limit = int(n)

    def wrap(real):
        def rename(src, dst, *a, **k):
            if fnmatch.fnmatch(os.path.basename(os.fspath(dst)), pattern):
                counts["renames"] += 1
                if counts["renames"] == limit:
                    _die()
            return real(src, dst, *a, **k)

        return rename

    os.replace, os.rename = wrap(os.replace), wrap(os.rename)
    if os.environ.get("FAULT_COUNT"):
        atexit.register(lambda: Path(os.environ["FAULT_COUNT"]).write_text(json.dumps(counts)))
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
