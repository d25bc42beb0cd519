"""Word-bigram Jaccard similarity per item, beside the paper's character-bigram similarity."""

from __future__ import annotations

from mmsoc.metrics.inputs import TextInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: TextInput) -> GroupResult:
    from mmsoc.metrics.text import word_bigram_jaccard

    return {"word_bigram_jaccard": word_bigram_jaccard(data.predictions, data.references)}, {}


GROUP = MetricGroup(
    "word_bigram",
    ("generation",),
    (
        Metric(
            "word_bigram_jaccard",
            True,
            "Jaccard similarity of lower-cased word-bigram sets per item (scikit-learn "
            "CountVectorizer on whitespace tokens), averaged; 0 when neither side has a "
            "bigram (not the paper's bigram similarity)",
            ("scikit-learn",),
        ),
    ),
    compute,
    order=43,
)
