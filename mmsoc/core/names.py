"""Names and texts a user gives (annotators, a judge's name, model names for runs, option texts), capped
before they are echoed or stored.

A message quotes such a text through :func:`shown`: its ``repr``, cut after ``SHOWN`` characters with its
length said, so that one error stays one short line whatever the user typed. A name that is stored (in a
vote database, a battles file, a report) goes through :func:`given_name`, which refuses one longer than
``NAME_LIMIT`` characters instead of cutting it (two long names cut alike would become one).
"""

from __future__ import annotations

from mmsoc.core.io import UsageError

SHOWN = 100
"""Characters of a user's text that a message quotes."""

NAME_LIMIT = 200
"""The longest name that is stored."""


REASON = 100
"""Characters of a library's reason that a one-line message keeps."""


def shown(text: str) -> str:
    """``text`` as a message quotes it: its ``repr``, or its first ``SHOWN`` characters and its length."""
    if len(text) <= SHOWN:
        return repr(text)
    return f"{text[:SHOWN]!r}... ({len(text):,} characters)"


def cut(text: str) -> str:
    """``text`` unquoted, or its first ``SHOWN`` characters and its length (where a message already quotes it)."""
    return text if len(text) <= SHOWN else f"{text[:SHOWN]}... ({len(text):,} characters)"


def cannot_load(model: str, err: Exception) -> OSError:
    """The one-line error of a model that cannot be loaded: the name capped wherever it is echoed, the
    library's reason on one line and cut after ``REASON`` characters."""
    why = " ".join(str(err).replace(model, cut(model)).split())
    why = why if len(why) <= REASON else why[:REASON] + "..."
    return OSError(f"cannot load model {shown(model)} (a local folder or a reachable hub id): {why}")


def given_name(name: str, what: str) -> str:
    """``name`` unchanged where it has 1 to ``NAME_LIMIT`` characters; else a UsageError naming ``what``."""
    if not name.strip():
        raise UsageError(f"{what} is empty")
    if len(name) > NAME_LIMIT:
        raise UsageError(f"{what} {shown(name)} is longer than {NAME_LIMIT} characters")
    return name
