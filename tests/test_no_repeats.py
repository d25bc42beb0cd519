"""No run of 10 or more similar lines twice among the sources (``mmsoc/`` and ``desiq/``): pylint's
similarity checker, ignoring comments, docstrings and imports (signatures count: a copied loader starts
with one). On the tree before the loaders became declarations it finds the copied loaders and kinds."""

from __future__ import annotations

import ast
import contextlib
import io
from pathlib import Path

import astroid
from pylint.checkers.symilar import Symilar

ROOT = Path(__file__).resolve().parent.parent
MIN_LINES = 10


def imported_modules(source: str) -> set[str]:
    """Every module a source imports, with each dotted prefix (``a.b.c`` -> ``a``, ``a.b``, ``a.b.c``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found = [node.module]
        else:
            continue
        for name in found:
            parts = name.split(".")
            names.update(".".join(parts[: i + 1]) for i in range(len(parts)))
    return names


def test_no_repeated_runs_of_ten_lines():
    sources = {
        str(path.relative_to(ROOT)): path.read_text(encoding="utf-8")
        for package in ("mmsoc", "desiq")
        for path in sorted((ROOT / package).rglob("*.py"))
    }
    # The checker parses each file with astroid, which would otherwise follow the imports into installed
    # packages (minutes for torch or transformers); only the lines of our own files are compared.
    denied = set().union(*map(imported_modules, sources.values())) - astroid.MANAGER.module_denylist
    astroid.MANAGER.module_denylist.update(denied)
    try:
        checker = Symilar(
            min_lines=MIN_LINES,
            ignore_comments=True,
            ignore_docstrings=True,
            ignore_imports=True,
            ignore_signatures=False,
        )
        for name, source in sources.items():
            checker.append_stream(name, io.StringIO(source))
        report = io.StringIO()
        with contextlib.redirect_stdout(report):
            checker.run()
    finally:
        astroid.MANAGER.module_denylist.difference_update(denied)
    assert " duplicates=0 " in report.getvalue(), report.getvalue()
