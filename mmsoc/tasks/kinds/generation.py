"""Free-text generation (image description, social context): the stripped response is the answer."""

from __future__ import annotations

from mmsoc.tasks.kinds._text import TextKind
from mmsoc.tasks.kinds.base import INVALID, Parsed
from mmsoc.tasks.spec import TaskSpec


class Generation(TextKind):
    name = "generation"
    text_baseline = "nearest_reference"
    open_ended = True

    def parse(self, spec: TaskSpec, raw: str, strict: bool) -> Parsed:
        text = raw.strip()
        return Parsed(text, True) if text else INVALID

    def target(self, spec: TaskSpec, label: object) -> str:
        text = str(label).strip()
        if not text:
            raise ValueError(f"task {spec.id!r}: empty reference text")
        return text

    def normalized(self, value: object) -> str:
        """None (an unparseable response) scores as the empty string."""
        from mmsoc.metrics.normalize import as_text

        return as_text(value)


KIND = Generation()
