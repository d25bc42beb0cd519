"""Cosine similarity of sentence-transformers embeddings per item."""

from __future__ import annotations

from mmsoc.metrics.inputs import TextInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: TextInput) -> GroupResult:
    from mmsoc.metrics.embedding import embedding_similarity, encoder_name

    return (
        {"embedding_similarity": embedding_similarity(data.predictions, data.references, data.text_encoder)},
        {"embedding_model": encoder_name(data.text_encoder)},
    )


GROUP = MetricGroup(
    "embedding",
    ("generation",),
    (
        Metric(
            "embedding_similarity",
            True,
            "cosine similarity of sentence-transformers embeddings per item, averaged; the model is named in the notes",
            ("sentence-transformers",),
        ),
    ),
    compute,
    order=41,
    model_based=True,
)
