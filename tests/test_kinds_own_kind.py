"""No module outside ``mmsoc/tasks/kinds/`` asks what kind a task is: no comparison with a name or attribute
called ``kind`` (``spec.kind == "ocr"``, ``kind in (...)``) and no ``getattr`` of a kind; callers use the
kind's own attributes and methods (ARCHITECTURE.md, "The task contract")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KINDS = ROOT / "mmsoc" / "tasks" / "kinds"
COMPARISONS = (ast.Eq, ast.NotEq, ast.In, ast.NotIn)
ALLOWED = {("mmsoc/metrics/registry.py", "applies_to")}
"""(module, function) pairs that may compare a kind: a metric group names the kinds it scores, and this is
the one place that matches them."""


def _says_kind(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and node.id == "kind") or (
        isinstance(node, ast.Attribute) and node.attr == "kind"
    )


def _mentions_kind(node: ast.AST) -> bool:
    return any(
        (isinstance(part, ast.Name) and "kind" in part.id.lower())
        or (isinstance(part, ast.Attribute) and "kind" in part.attr.lower())
        for part in ast.walk(node)
    )


def branches_on_kind(source: str, allowed: frozenset[str] = frozenset()) -> list[int]:
    """Lines of ``source`` that compare a ``kind`` or take ``getattr`` of something named after a kind,
    outside the functions named in ``allowed``."""
    tree = ast.parse(source)
    skipped = {
        id(node)
        for function in ast.walk(tree)
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and function.name in allowed
        for node in ast.walk(function)
    }
    lines = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        compares = isinstance(node, ast.Compare) and any(isinstance(op, COMPARISONS) for op in node.ops)
        if compares and any(_says_kind(operand) for operand in (node.left, *node.comparators)):
            lines.append(node.lineno)
        getattr_call = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
        if getattr_call and node.args and _mentions_kind(node.args[0]):
            lines.append(node.lineno)
    return sorted(lines)


@pytest.mark.parametrize(
    ("source", "lines"),
    [
        ('if spec.kind == "ocr":\n    pass\n', [1]),
        ('x = 1\nok = kind in ("a", "b")\n', [2]),
        ('ok = "a" not in kind\n', [1]),
        ("ok = task.kind != other\n", [1]),
        ('flag = getattr(kind_of(task), "text_only", False)\n', [1]),
        ('flag = getattr(spec.kind, "x", None)\n', [1]),
        # what stays allowed: asking the kind itself, and other words
        ("flag = kind_of(task).open_ended\n", []),
        ('ok = task_type == "SPAN"\n', []),
        ('ok = kinds == ("a",)\n', []),
        ("flag = getattr(model, 'runtime', None)\n", []),
    ],
)
def test_the_check_finds_branches_on_the_kind(source, lines):
    assert branches_on_kind(source) == lines


def test_an_allowed_function_may_compare_a_kind():
    source = "def applies_to(self, kind):\n    return kind in self.kinds\n\n\ndef f(kind):\n    return kind == 'a'\n"
    assert branches_on_kind(source) == [2, 6]
    assert branches_on_kind(source, frozenset({"applies_to"})) == [6]


def test_no_module_outside_the_kinds_branches_on_the_kind():
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for package in ("mmsoc", "desiq")
        for path in sorted((ROOT / package).rglob("*.py"))
        if KINDS not in path.parents
        for line in branches_on_kind(
            path.read_text(encoding="utf-8"),
            frozenset(name for module, name in ALLOWED if module == path.relative_to(ROOT).as_posix()),
        )
    ]
    assert not found, "branches on the task kind outside mmsoc/tasks/kinds/:\n" + "\n".join(found)
