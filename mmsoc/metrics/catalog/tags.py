"""Multi-label tagging: Hamming loss, per-item Jaccard, subset accuracy and macro P/R/F1 over topics."""

from __future__ import annotations

from mmsoc.metrics.inputs import TagInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: TagInput) -> GroupResult:
    import numpy as np

    from mmsoc.metrics.stats import mean_stat, multilabel_stats

    truth, pred = data.truth, data.pred
    union = (truth | pred).sum(1)
    stats = {"hamming_loss": mean_stat((truth != pred).sum(1) / len(data.topics)),
             "jaccard": mean_stat(np.where(union == 0, 1.0, (truth & pred).sum(1) / np.maximum(union, 1))),
             "accuracy": mean_stat((truth == pred).all(1)),
             **multilabel_stats(truth, pred)}
    return stats, {}


_MACRO = "scikit-learn precision_recall_fscore_support over the topics present, average='macro', zero_division=0"

GROUP = MetricGroup("tags", ("multilabel",), (
    Metric("hamming_loss", False, "scikit-learn hamming_loss over all topics (unknown tags ignored and counted)"),
    Metric("jaccard", True, "scikit-learn jaccard_score, average='samples', zero_division=1"),
    Metric("accuracy", True, "scikit-learn accuracy_score: exact match of the whole tag set"),
    Metric("macro_precision", True, _MACRO),
    Metric("macro_recall", True, _MACRO),
    Metric("macro_f1", True, _MACRO),
), compute, order=50)
