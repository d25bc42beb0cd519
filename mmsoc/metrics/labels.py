"""Classification and multi-label (tagging) metrics, computed by scikit-learn."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from sklearn.metrics import accuracy_score, hamming_loss, jaccard_score, precision_recall_fscore_support, roc_auc_score

from mmsoc.metrics.stats import ItemStat, confusion_stats, mean_stat, multilabel_stats

INVALID = "<invalid>"
"""Stands for an unparseable prediction: outside every label set, so it always counts as wrong."""


@dataclass
class LabelScores:
    """Point values (from scikit-learn), per-item statistics for intervals, and counts."""

    metrics: dict[str, float]
    stats: dict[str, ItemStat]
    info: dict[str, object] = field(default_factory=dict)


def canonical_label(value: object, labels: Sequence[str]) -> str | None:
    """The label ``value`` names (exact, then case-insensitive after trimming), or None."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text in labels:
        return text
    lowered = {label.lower(): label for label in labels}
    return lowered.get(text.lower())


def classification(predictions: Sequence[object], references: Sequence[str], labels: Sequence[str]) -> LabelScores:
    """Accuracy, macro precision / recall / F1 and macro one-vs-rest AUC of hard predictions.

    Predictions that name no label count as wrong. Macro averages run over the labels that occur
    in the references or the valid predictions (scikit-learn's own default label set), with
    ``zero_division=0``. AUC scores the 0/1 indicator of the predicted label against each class
    (one-vs-rest) and averages over classes that have both positive and negative items; it is
    NaN when no class does (e.g. a single item).
    """
    labels = list(labels)
    y_true = np.array([_reference_label(ref, labels) for ref in references], dtype=object)
    parsed = [canonical_label(pred, labels) for pred in predictions]
    y_pred = np.array([INVALID if p is None else p for p in parsed], dtype=object)
    present = [label for label in labels if label in set(y_true) | set(y_pred)]
    precision, recall, f1, _ = precision_recall_fscore_support(
        y_true, y_pred, labels=present, average="macro", zero_division=0)
    metrics = {"accuracy": float(accuracy_score(y_true, y_pred)), "macro_precision": float(precision),
               "macro_recall": float(recall), "macro_f1": float(f1), "auc": _auc(y_true, y_pred, present)}
    index = {label: i for i, label in enumerate(labels)}
    true_idx = np.array([index[y] for y in y_true], dtype=np.int64)
    pred_idx = np.array([index.get(y, len(labels)) for y in y_pred], dtype=np.int64)
    stats = confusion_stats(true_idx, pred_idx, len(labels))
    stats["accuracy"] = mean_stat(true_idx == pred_idx)
    return LabelScores(metrics, stats, {"invalid_predictions": int(sum(p is None for p in parsed)),
                                        "macro_labels": present})


def _reference_label(value: object, labels: list[str]) -> str:
    label = canonical_label(value, labels)
    if label is None:
        raise ValueError(f"reference {value!r} is not one of the labels {labels}")
    return label


def _auc(y_true: np.ndarray, y_pred: np.ndarray, present: list[str]) -> float:
    truth = np.column_stack([y_true == label for label in present]).astype(int)
    score = np.column_stack([y_pred == label for label in present]).astype(int)
    defined = [j for j in range(len(present)) if 0 < truth[:, j].sum() < len(truth)]
    if not defined:
        return float("nan")
    if len(defined) == 1:
        return float(roc_auc_score(truth[:, defined[0]], score[:, defined[0]]))
    return float(roc_auc_score(truth[:, defined], score[:, defined], average="macro"))


def parse_tags(value: object) -> list[str]:
    """Tags from a list, a JSON list string or a comma-separated string; None gives no tags."""
    if value is None:
        return []
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                value = text.strip("[]").split(",")
        else:
            value = text.split(",")
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"tags must be a list or a comma-separated string, got {type(value).__name__}")
    return [tag for tag in (str(t).strip().strip("\"'").strip().lower().replace(" ", "_") for t in value) if tag]


def _indicator(tag_lists: Sequence[object], topics: Sequence[str]) -> tuple[np.ndarray, int]:
    """0/1 matrix (n, len(topics)) of known tags, and the number of unknown tags ignored."""
    index = {topic: j for j, topic in enumerate(topics)}
    matrix = np.zeros((len(tag_lists), len(topics)), dtype=np.int64)
    unknown = 0
    for i, value in enumerate(tag_lists):
        for tag in parse_tags(value):
            if tag in index:
                matrix[i, index[tag]] = 1
            else:
                unknown += 1
    return matrix, unknown


def multilabel(predictions: Sequence[object], references: Sequence[object], topics: Sequence[str]) -> LabelScores:
    """Hamming loss over all topics, per-item Jaccard, subset accuracy and macro P/R/F1.

    Tags outside ``topics`` are ignored and counted. Macro averages run over the topics that
    occur in the references or the predictions (``zero_division=0``); Jaccard of two empty sets
    is 1 (``zero_division=1``).
    """
    truth, unknown_ref = _indicator(references, topics)
    pred, unknown_pred = _indicator(predictions, topics)
    present = [j for j in range(len(topics)) if truth[:, j].any() or pred[:, j].any()]
    if present:
        precision, recall, f1, _ = precision_recall_fscore_support(
            truth, pred, labels=present, average="macro", zero_division=0)
    else:
        precision = recall = f1 = 0.0
    metrics = {"hamming_loss": float(hamming_loss(truth, pred)),
               "jaccard": float(jaccard_score(truth, pred, average="samples", zero_division=1.0)),
               "accuracy": float(accuracy_score(truth, pred)),
               "macro_precision": float(precision), "macro_recall": float(recall), "macro_f1": float(f1)}
    union = (truth | pred).sum(1)
    stats = multilabel_stats(truth, pred)
    stats["hamming_loss"] = mean_stat((truth != pred).sum(1) / len(topics))
    stats["jaccard"] = mean_stat(np.where(union == 0, 1.0, (truth & pred).sum(1) / np.maximum(union, 1)))
    stats["accuracy"] = mean_stat((truth == pred).all(1))
    info = {"unknown_predicted_tags": unknown_pred, "unknown_reference_tags": unknown_ref,
            "empty_predictions": int((pred.sum(1) == 0).sum()), "macro_labels": [topics[j] for j in present]}
    return LabelScores(metrics, stats, info)
