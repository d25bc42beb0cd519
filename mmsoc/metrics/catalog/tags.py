"""Multi-label tagging: Hamming loss, per-item Jaccard, subset accuracy and macro P/R/F1 over topics."""

from __future__ import annotations

from mmsoc.metrics.inputs import TagInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: TagInput) -> GroupResult:
    import numpy as np

    from mmsoc.metrics.stats import mean_stat, multilabel_stats

    truth, pred = data.truth, data.pred
    union = (truth | pred).sum(1)
    stats = {
        "hamming_loss": mean_stat((truth != pred).sum(1) / len(data.topics)),
        "jaccard": mean_stat(np.where(union == 0, 1.0, (truth & pred).sum(1) / np.maximum(union, 1))),
        "accuracy": mean_stat((truth == pred).all(1)),
        **multilabel_stats(truth, pred),
    }
    return stats, {}


_MACRO = (
    "equal to scikit-learn precision_recall_fscore_support(average='macro', zero_division=0) over the topics "
    "present; computed by mmsoc from per-item indicator counts"
)

GROUP = MetricGroup(
    "tags",
    ("multilabel",),
    (
        Metric(
            "hamming_loss",
            False,
            "share of wrong (item, topic) indicators over all topics, equal to scikit-learn "
            "hamming_loss (unknown tags ignored and counted)",
        ),
        Metric(
            "jaccard",
            True,
            "per-item |gold & predicted| / |gold | predicted|, averaged, equal to scikit-learn "
            "jaccard_score(average='samples', zero_division=1)",
        ),
        Metric("accuracy", True, "exact match of the whole tag set (equal to scikit-learn accuracy_score)"),
        Metric("macro_precision", True, _MACRO),
        Metric("macro_recall", True, _MACRO),
        Metric("macro_f1", True, _MACRO),
    ),
    compute,
    order=50,
)
