"""OCR: the text in the image, enclosed in double quotes; scored after normalisation."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from mmsoc.core.records import Example
from mmsoc.models.base import Request
from mmsoc.tasks.kinds._text import TextKind
from mmsoc.tasks.kinds.base import INVALID, Parsed, image_request
from mmsoc.tasks.spec import TaskSpec

_QUOTED = re.compile(r"[\"\u201c\u201d]([^\"\u201c\u201d]*)[\"\u201c\u201d]")


class OCR(TextKind):
    name = "ocr"

    def request(self, spec: TaskSpec, example: Example, instruction: str, seed: int | None = None) -> Request:
        """The image and the instruction only: the text of a meme is the OCR answer itself."""
        return image_request(example, instruction, seed, with_text=False)

    def parse(self, spec: TaskSpec, raw: str, strict: bool) -> Parsed:
        """The text inside the first double-quoted span (lenient: the whole response without quotes)."""
        quoted = _QUOTED.search(raw)
        if quoted is None and strict:
            return INVALID
        text = (quoted.group(1) if quoted else raw).strip()
        return Parsed(text, True) if text else INVALID

    def target(self, spec: TaskSpec, label: object) -> str:
        text = str(label).strip()
        if not text:
            raise ValueError(f"task {spec.id!r}: empty reference text")
        return f'"{text}"'

    def normalized(self, value: Any) -> str:
        from mmsoc.metrics.normalize import normalize_ocr

        return normalize_ocr(value)

    def notes(self, spec: TaskSpec, predictions: Sequence[object], references: Sequence[object]) -> dict[str, object]:
        from mmsoc.metrics.normalize import OCR_NORMALISATION

        return {"normalisation": OCR_NORMALISATION}


KIND = OCR()
