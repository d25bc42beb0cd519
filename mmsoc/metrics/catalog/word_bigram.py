"""Word-bigram Jaccard similarity per item, beside the paper's character-bigram similarity."""

from __future__ import annotations

from mmsoc.metrics.registry import Metric
from mmsoc.metrics.text_groups import single_group

_METHOD = (
    "Jaccard similarity of lower-cased word-bigram sets per item (scikit-learn CountVectorizer on whitespace "
    "tokens), averaged; 0 when neither side has a bigram (not the paper's bigram similarity)"
)

GROUP = single_group(
    "word_bigram",
    ("generation",),
    Metric("word_bigram_jaccard", True, _METHOD, ("scikit-learn",)),
    "word_bigram_jaccard",
    order=43,
)
