"""OCR token F1 (the paper's Macro-F1 for OCR): bag-of-words overlap of prediction and reference."""

from __future__ import annotations

from mmsoc.metrics.registry import Metric
from mmsoc.metrics.text_groups import single_group

_METHOD = (
    "mean over items of bag-of-words token F1 between normalised prediction and reference, whitespace tokens "
    "counted with scikit-learn CountVectorizer (1 when both are empty)"
)

GROUP = single_group(
    "token_f1", ("ocr",), Metric("token_f1", True, _METHOD, ("scikit-learn",), paper="Macro-F1"), "token_f1", order=65
)
