"""Prompt templates of the text suites: ``{name}`` placeholders filled from an item's fields in one pass."""

from __future__ import annotations

import re
from collections.abc import Mapping

PLACEHOLDER = re.compile(r"\{(\w+)\}")


def fill(template: str, fields: Mapping[str, str]) -> str:
    """``template`` with each ``{name}`` of ``fields`` replaced by its value; other braces stay as written.

    One pass, so a value that itself contains ``{text_b}`` is never replaced again."""
    return PLACEHOLDER.sub(lambda match: fields.get(match.group(1), match.group(0)), template)
