"""Run many ``mmsoc``/``desiq`` command lines one after another in one process, as their console entry
points (``PROG.cli.main``) would run them, and record each one's exit status, stdout and stderr.

    python driver.py COMMANDS.json RESULTS.json

COMMANDS.json: a list of ``[prog, [args...]]``. One process pays the imports once for a whole matrix
of failing commands; anything that escapes ``main`` is printed as the traceback a user would see.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import traceback
from importlib import import_module


def run_one(prog: str, args: list[str]) -> dict:
    out, err = io.StringIO(), io.StringIO()
    sys.argv = [prog, *args]
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            import_module(f"{prog}.cli").main()
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
        except BaseException:  # what the interpreter would print before exiting with status 1
            traceback.print_exc()
            code = 1
    return {"prog": prog, "args": args, "returncode": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


def main() -> None:
    todo, done = sys.argv[1:3]
    with open(todo, encoding="utf-8") as handle:
        commands = json.load(handle)
    results = [run_one(prog, args) for prog, args in commands]
    with open(done, "w", encoding="utf-8") as handle:
        json.dump(results, handle)


if __name__ == "__main__":
    main()
