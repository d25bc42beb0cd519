"""Parsing and scoring by task id, through the task's kind handler."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from mmsoc.metrics.datasets import dataset_rows, mean_over_datasets
from mmsoc.tasks.kinds.base import Parsed, TaskScores, answer_part
from mmsoc.tasks.registry import get_task, kind_of

PARSE_MODES = ("strict", "lenient")


def parse_response(task_id: str, raw: str, mode: str = "lenient") -> Parsed:
    """Parse one response of ``task_id`` in ``mode``; a trailing ``Explanation: ...`` (what
    explanation fine-tuning teaches a model to write) is cut off first for explainable kinds."""
    if mode not in PARSE_MODES:
        raise ValueError(f"unknown parse mode {mode!r}; expected one of {PARSE_MODES}")
    spec = get_task(task_id)
    kind = kind_of(spec)
    text = raw or ""
    return kind.parse(spec, answer_part(text) if kind.explainable else text, mode == "strict")


def score_task_detailed(
    task_id: str,
    predictions: Sequence[object],
    references: Sequence[object],
    *,
    text_encoder: str | None = None,
    fast: bool = False,
) -> TaskScores:
    """Metric values, per-item statistics (for bootstrap intervals) and method notes of one task.

    Unparseable predictions arrive as None and count as wrong (classification), as no tags
    (tagging) or as the empty string (text tasks). ``fast`` skips the model-based metrics
    (BERTScore, embedding similarity). Undefined values (e.g. AUC on one class) are NaN.
    """
    spec = get_task(task_id)
    return kind_of(spec).score(spec, predictions, references, text_encoder=text_encoder, fast=fast)


def score_task(
    task_id: str,
    predictions: Sequence[object],
    references: Sequence[object],
    *,
    text_encoder: str | None = None,
    fast: bool = False,
) -> dict[str, float | int]:
    """The flat metrics of one task and ``n``."""
    return score_task_detailed(task_id, predictions, references, text_encoder=text_encoder, fast=fast).metrics


def score_task_averaged(
    task_id: str,
    predictions: Sequence[object],
    references: Sequence[object],
    ids: Sequence[str] | None = None,
    *,
    text_encoder: str | None = None,
    fast: bool = False,
) -> tuple[dict[str, float | int], dict[str, TaskScores]]:
    """The metrics ``mmsoc score`` and metrics.json report and the scores they come from; an undefined metric
    (NaN) is None, with why in words in the scores' ``info["undefined"]`` (:func:`undefined_metrics`).

    A task that pools datasets (OCR) whose ``ids`` all read ``dataset/item`` (a dataset of the task's
    sources) is scored on each dataset, and its metrics are the mean over them, as the paper averages
    OCR over Hateful Memes and Memotion (``n`` is the total); otherwise the items are scored together,
    under the name ``""``.
    """
    rows = dataset_rows(ids, get_task(task_id).sources) if ids is not None else {}
    if not rows:
        scores = score_task_detailed(task_id, predictions, references, text_encoder=text_encoder, fast=fast)
        return _null_undefined(scores.metrics, scores.info, task_id), {"": scores}
    parts = {
        name: score_task_detailed(
            task_id, [predictions[i] for i in part], [references[i] for i in part], text_encoder=text_encoder, fast=fast
        )
        for name, part in rows.items()
    }
    for part in parts.values():
        part.metrics = _null_undefined(part.metrics, part.info, task_id)
    return _null_undefined(mean_over_datasets([part.metrics for part in parts.values()]), {}, task_id), parts


def undefined_metrics(metrics: Mapping[str, object], task_id: str) -> dict[str, str]:
    """The metrics of ``metrics`` that are null (undefined), each with why in words
    (:func:`mmsoc.metrics.registry.why_undefined`: ``{"auc": "the references hold one class"}``)."""
    from mmsoc.metrics.registry import why_undefined

    kind = get_task(task_id).kind
    return {key: why_undefined(kind, key) for key, value in metrics.items() if value is None}


def _null_undefined(metrics: dict[str, Any], info: dict[str, object], task_id: str) -> dict[str, Any]:
    """``metrics`` with NaN and infinities (undefined values) as None, why noted in ``info["undefined"]``."""
    out = {
        key: None if isinstance(value, float) and not math.isfinite(value) else value for key, value in metrics.items()
    }
    if undefined_metrics(out, task_id):
        info["undefined"] = undefined_metrics(out, task_id)
    return out
