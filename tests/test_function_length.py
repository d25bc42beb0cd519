"""No function or method of the packages runs over ``MAX_LINES`` lines, counted from its ``def`` line (decorators
left out, the signature counted) to its last line."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 80


def lengths(source: str) -> list[tuple[int, str, int]]:
    """(line of the ``def``, name, length in lines) of every function and method in ``source``."""
    return [
        (node.lineno, node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None
    ]


def test_lengths_count_from_the_def_line_to_the_last_line():
    source = (
        "@decorator\n"  # decorators are not counted
        "def f(\n"
        "    a: int,\n"
        ") -> int:\n"
        "    def inner():\n"
        "        return 1\n"
        "\n"
        "    return a\n"
        "\n"
        "\n"
        "class C:\n"
        "    async def m(self):\n"
        "        pass\n"
    )
    assert sorted(lengths(source)) == [(2, "f", 7), (5, "inner", 2), (12, "m", 2)]


def test_no_function_is_longer_than_the_limit():
    long = [
        f"{path.relative_to(ROOT)}:{line} {name} {length}"
        for path in sorted([*ROOT.glob("mmsoc/**/*.py"), *ROOT.glob("desiq/**/*.py")])
        for line, name, length in lengths(path.read_text(encoding="utf-8"))
        if length > MAX_LINES
    ]
    assert long == [], f"functions over {MAX_LINES} lines (file:line name lines): " + "; ".join(long)
