"""Kondrak (2005) character-bigram similarity per item, the paper's bigram similarity."""

from __future__ import annotations

from mmsoc.metrics.inputs import TextInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: TextInput) -> GroupResult:
    from mmsoc.metrics.kondrak import ngram_similarity
    from mmsoc.metrics.stats import mean_stat

    return {"bigram_similarity": mean_stat(ngram_similarity(data.predictions, data.references, 2))}, {}


GROUP = MetricGroup(
    "bigram",
    ("generation",),
    (
        Metric(
            "bigram_similarity",
            True,
            "1 - Kondrak (2005) normalised character-bigram distance per item, averaged: "
            "Lucene NGramDistance(2) (the algorithm strsimpy.NGram ports, without its "
            "first-column defect), case-sensitive, computed with numpy",
            ("numpy",),
        ),
    ),
    compute,
    order=42,
)
