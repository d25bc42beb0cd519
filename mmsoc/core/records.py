"""Typed records shared by every part of the toolkit."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Example:
    """One MM-Soc input: images, text, and the gold label or reference."""

    id: str
    task: str
    text: str = ""
    images: tuple[str, ...] = ()
    label: Any = None
    meta: dict[str, Any] = field(default_factory=dict)
