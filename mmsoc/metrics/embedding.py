"""Embedding-based metrics: BERTScore (bert-score) and sentence-embedding cosine similarity."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mmsoc.media.sentences import DEFAULT_TEXT_ENCODER, embed_texts, resolve_text_encoder
from mmsoc.metrics.stats import ItemStat, mean_stat

BERTSCORE_BATCH = 64


def encoder_name(model: str | None) -> str:
    """A printable name for a text encoder: the default's description, a folder's name or a hub id."""
    if model in (None, "", "default"):
        return DEFAULT_TEXT_ENCODER
    return Path(model).name if Path(model).is_dir() else str(model)


@functools.lru_cache(maxsize=4)
def bertscore_layers(model: str | None) -> int:
    """bert-score's tuned layer for known models, otherwise the model's last hidden layer."""
    from bert_score.utils import model2layers
    from transformers import AutoConfig

    path = resolve_text_encoder(model)
    return model2layers.get(path) or AutoConfig.from_pretrained(path).num_hidden_layers


@functools.lru_cache(maxsize=2)
def _scorer(model: str | None, layers: int):
    from bert_score import BERTScorer

    return BERTScorer(model_type=resolve_text_encoder(model), num_layers=layers, batch_size=BERTSCORE_BATCH)


def bertscore(predictions: Sequence[str], references: Sequence[str], model: str | None = None) -> tuple[ItemStat, str]:
    """BERTScore F1 per item (no idf, no baseline rescaling), averaged; returns (stat, description).

    Pairs with an empty (or blank) side score 0, which is bert-score's own rule for empty
    sentences; they are not sent to the model.
    """
    import torch

    layers = bertscore_layers(model)
    f1 = np.zeros(len(predictions), dtype=np.float64)
    keep = [i for i, (p, r) in enumerate(zip(predictions, references)) if p.strip() and r.strip()]
    if keep:
        with torch.inference_mode():
            _, _, scores = _scorer(model, layers).score(
                [predictions[i] for i in keep], [references[i] for i in keep], batch_size=BERTSCORE_BATCH
            )
        f1[keep] = scores.double().numpy()
    return mean_stat(f1), f"{encoder_name(model)}, layer {layers}, no idf, no baseline rescaling"


def embedding_similarity(predictions: Sequence[str], references: Sequence[str], model: str | None = None) -> ItemStat:
    """Cosine similarity per item of sentence embeddings (sentence-transformers), averaged."""
    import torch

    with torch.inference_mode():
        vectors = embed_texts(list(predictions) + list(references), model=model, normalize=True).astype(np.float64)
    n = len(predictions)
    return mean_stat((vectors[:n] * vectors[n:]).sum(1))
