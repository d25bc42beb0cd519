"""Standard JSON only: NaN and infinities are refused where JSON is read and never written.

Python's ``json`` reads the non-standard tokens ``NaN``, ``Infinity`` and ``-Infinity`` (and numbers too
large for a float, such as ``1e999``, as infinity) and writes them back; other JSON parsers reject them.
:func:`loads` reads one document and raises :class:`NonFinite` naming the first field that holds such a
value; :func:`dumps` writes with ``allow_nan=False`` and names the field that holds one.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any


class NonFinite(ValueError):
    """A NaN or an infinity at ``field`` (a dotted path: ``reference``, ``scores.2``; None at the top)."""

    def __init__(self, value: str, field: str | None):
        self.value, self.field = value, field
        super().__init__(f"{value} is not standard JSON (it has no NaN or infinities)")


_BAD = object()
"""Stands in for a non-finite value while a document is parsed, so that its field can be named."""


def loads(text: str) -> Any:
    """``json.loads`` that raises NonFinite for ``NaN``, ``Infinity``, ``-Infinity`` and overflowing numbers."""
    found: list[str] = []

    def constant(name: str) -> object:
        found.append(name)
        return _BAD

    def number(literal: str) -> object:
        value = float(literal)
        if math.isfinite(value):
            return value
        found.append(literal)
        return _BAD

    obj = json.loads(text, parse_constant=constant, parse_float=number)
    if found:
        raise NonFinite(found[0], field_of(obj, lambda value: value is _BAD))
    return obj


def is_non_finite(value: object) -> bool:
    """Whether ``value`` is a float NaN or infinity (the values standard JSON cannot hold)."""
    return isinstance(value, float) and not math.isfinite(value)


def field_of(obj: Any, wanted: Any, path: str | None = None) -> str | None:
    """The dotted path of the first value in ``obj`` for which ``wanted(value)`` holds (None at the top)."""
    if isinstance(obj, dict):
        items: Any = obj.items()
    elif isinstance(obj, (list, tuple)):
        items = enumerate(obj)
    else:
        return None
    for key, value in items:
        here = f"{path}.{key}" if path else str(key)
        if wanted(value):
            return here
        inner = field_of(value, wanted, here)
        if inner is not None:
            return inner
    return None


def dumps(obj: Any, where: str | os.PathLike | None = None, **options: Any) -> str:
    """``json.dumps`` with ``allow_nan=False``; a NaN or infinity raises ValueError naming ``where`` (the
    file being written) and the field that holds it."""
    try:
        return json.dumps(obj, allow_nan=False, **options)
    except ValueError as err:
        if not str(err).startswith("Out of range float"):
            raise
        field = field_of(obj, is_non_finite)
        place = f"{os.fspath(where)}: " if where is not None else ""
        raise ValueError(f"{place}field '{field}': not written: {NonFinite('NaN or infinity', field)}") from None
