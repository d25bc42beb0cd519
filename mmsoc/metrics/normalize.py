"""Text normalisation applied before scoring (the one place where it is defined)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

QUOTE_PAIRS: tuple[tuple[str, str], ...] = (
    ('"', '"'),
    ("'", "'"),
    ("\u201c", "\u201d"),
    ("\u2018", "\u2019"),
    ("\u00ab", "\u00bb"),
    ("`", "`"),
)
"""Enclosing quote pairs removed by :func:`normalize_ocr` (straight, curly, guillemets, backticks)."""

OCR_NORMALISATION = (
    "OCR text is normalised on both sides before scoring: Unicode NFC, lower case, enclosing quote "
    "pairs (\" ' \u201c\u201d \u2018\u2019 \u00ab\u00bb `) removed repeatedly from the ends, runs of "
    "whitespace collapsed to one space, leading and trailing whitespace removed."
)


def normalize_ocr(text: str | None) -> str:
    """Normalise an OCR string: NFC, lower case, no enclosing quotes, single spaces.

    ``None`` (an unparseable response) becomes the empty string. Only a quote pair around the
    whole text is removed: ``don't`` keeps its apostrophe.
    """
    if text is None:
        return ""
    out = " ".join(unicodedata.normalize("NFC", text).lower().split())
    while len(out) >= 2 and (out[0], out[-1]) in QUOTE_PAIRS:
        out = " ".join(out[1:-1].split())
    return out


def as_text(value: object) -> str:
    """A generation response as text: ``None`` (unparseable) is the empty string."""
    return "" if value is None else str(value)


def word_lengths(texts: Sequence[str]) -> list[int]:
    """Response length in words (whitespace-separated tokens) for each text."""
    return [len(text.split()) for text in texts]
