"""Word-level helpers of answer parsing: lower-case tokens with negations expanded."""

from __future__ import annotations

import re

_TOKEN = re.compile(r"[a-z0-9]+|[,;:]")


def tokens(text: str) -> list[str]:
    """Lower-case words with ``n't`` expanded to ``not``, ``_``/``-`` as spaces, clause punctuation kept."""
    text = re.sub(r"n[’']t\b", " not", text.lower())
    return _TOKEN.findall(re.sub(r"[_\-]", " ", text))
