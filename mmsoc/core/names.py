"""Names and texts a user gives (annotators, a judge's name, model names for runs, option texts), capped
before they are echoed or stored.

A message quotes such a text through :func:`shown`: its ``repr``, cut after ``SHOWN`` characters with its
length said, so that one error stays one short line whatever the user typed. A name that is stored (in a
vote database, a battles file, a report) goes through :func:`given_name`, which refuses one longer than
``NAME_LIMIT`` characters instead of cutting it (two long names cut alike would become one).
"""

from __future__ import annotations

from mmsoc.core.io import UsageError

SHOWN = 60
"""Characters of a user's text that a message quotes."""

NAME_LIMIT = 200
"""The longest name that is stored."""


def shown(text: str) -> str:
    """``text`` as a message quotes it: its ``repr``, or its first ``SHOWN`` characters and its length."""
    if len(text) <= SHOWN:
        return repr(text)
    return f"{text[:SHOWN]!r}... ({len(text):,} characters)"


def given_name(name: str, what: str) -> str:
    """``name`` unchanged where it has 1 to ``NAME_LIMIT`` characters; else a UsageError naming ``what``."""
    if not name.strip():
        raise UsageError(f"{what} is empty")
    if len(name) > NAME_LIMIT:
        raise UsageError(f"{what} {shown(name)} is longer than {NAME_LIMIT} characters")
    return name
