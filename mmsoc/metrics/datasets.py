"""Tasks that pool datasets (OCR: Hateful Memes and Memotion) are scored per dataset, then averaged,
as the paper does. Their item ids read ``dataset/item``; these helpers split rows and average scores."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def dataset_rows(ids: Sequence[str], sources: Sequence[str]) -> dict[str, np.ndarray]:
    """Row indices of each dataset, in ``sources`` order, for a task with several sources whose every id
    starts with ``<source>/``; empty when the task has one source or an id names none of them."""
    if len(sources) < 2:
        return {}
    prefixes = np.asarray([item.split("/", 1)[0] if "/" in item else "" for item in ids], dtype=object)
    if not ids or not np.isin(prefixes, list(sources)).all():
        return {}
    return {source: rows for source in sources if len(rows := np.flatnonzero(prefixes == source))}


def mean_over_datasets(scores: Sequence[dict[str, float | int]]) -> dict[str, float | int]:
    """Each metric averaged over the datasets' scores (NaN where a dataset's value is undefined or
    missing); ``n`` is the total number of items."""
    keys = [key for key in scores[0] if key != "n"]
    out: dict[str, float | int] = {
        key: float(np.mean([np.nan if s.get(key) is None else s[key] for s in scores])) for key in keys
    }
    if all("n" in s for s in scores):
        out["n"] = int(sum(s["n"] for s in scores))
    return out
