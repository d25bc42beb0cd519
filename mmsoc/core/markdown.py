"""Text from runs (model names, folder names, predictions, references) as literal Markdown.

Every Markdown writer puts such text through :func:`md_text` (``|`` is escaped, so it also fits a pipe-table
cell), and it renders in CommonMark and GitHub's Markdown as exactly the characters it holds: no raw HTML, autolink,
link, image, code span, emphasis or strikethrough, and no character reference (``&`` is escaped too, so
``&lt;`` stays those four characters). Escapes are backslashes, never HTML entities. Whitespace (newlines
included) becomes single spaces and control characters are dropped, so one value stays on one line.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["md_text"]

_ALWAYS = frozenset("\\`*~[]<>&|")
"""Punctuation escaped wherever it stands (CommonMark lets any ASCII punctuation be backslash-escaped)."""
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Directional overrides and isolates: they reorder what a reader sees."""
_BLOCK_START = re.compile(r"^(?:[#+\-=_>]|\d{1,9}[.)])")
"""What opens a heading, list, quote, thematic break or setext underline at the start of a paragraph."""


def _drop_controls(text: str) -> str:
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cc" and ch not in _BIDI)


def _escape_char(text: str, k: int) -> str:
    ch = text[k]
    if ch in _ALWAYS:
        return "\\" + ch
    if ch == "_":  # inside a word it cannot make emphasis, so ``DeSIQ_d`` stays as written
        inside = 0 < k < len(text) - 1 and text[k - 1].isalnum() and text[k + 1].isalnum()
        return ch if inside else "\\_"
    return ch


def md_text(value: object, paragraph: bool = False) -> str:
    """``value`` as literal inline Markdown on one line; a ``paragraph`` also starts no block (heading,
    list, quote, thematic break)."""
    text = _drop_controls(" ".join(str(value).split()))
    out = "".join(_escape_char(text, k) for k in range(len(text)))
    match = _BLOCK_START.match(out) if paragraph else None
    if match:
        end = match.end()
        out = out[: end - 1] + "\\" + out[end - 1 :]
    return out
