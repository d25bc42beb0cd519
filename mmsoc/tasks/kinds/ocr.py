"""OCR: the text in the image, enclosed in double quotes; scored after normalisation."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from mmsoc.core.records import Example
from mmsoc.models.base import Request
from mmsoc.tasks.kinds._text import score_text
from mmsoc.tasks.kinds.base import (
    INVALID,
    Parsed,
    TaskScores,
    check_lengths,
    image_request,
    text_prediction,
    text_value,
)
from mmsoc.tasks.spec import TaskSpec

_QUOTED = re.compile(r"[\"\u201c\u201d]([^\"\u201c\u201d]*)[\"\u201c\u201d]")


class OCR:
    name = "ocr"
    explainable = False
    text_baseline = "none"
    confusion = False

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

    def target(self, spec: TaskSpec, label: Any) -> str:
        text = str(label).strip()
        if not text:
            raise ValueError(f"task {spec.id!r}: empty reference text")
        return f'"{text}"'

    def random_answer(self, spec: TaskSpec, rng: np.random.Generator) -> str:
        return ""

    def check_reference(self, spec: TaskSpec, value: Any) -> Any:
        return text_value(value)

    def check_prediction(self, spec: TaskSpec, value: Any) -> Any:
        return text_prediction(value)

    def score(
        self,
        spec: TaskSpec,
        predictions: Sequence[Any],
        references: Sequence[Any],
        *,
        text_encoder: str | None = None,
        fast: bool = False,
    ) -> TaskScores:
        from mmsoc.metrics.normalize import OCR_NORMALISATION, normalize_ocr

        check_lengths(spec.id, predictions, references)
        scores = score_text(
            self.name,
            spec.id,
            [normalize_ocr(p) for p in predictions],
            [normalize_ocr(r) for r in references],
            text_encoder,
            fast,
        )
        scores.info["normalisation"] = OCR_NORMALISATION
        return scores


KIND = OCR()
