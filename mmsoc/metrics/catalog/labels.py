"""Classification: accuracy, macro precision / recall / F1 and one-vs-rest AUC of hard predictions."""

from __future__ import annotations

from mmsoc.metrics.inputs import LabelInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup

_MACRO = (
    "equal to scikit-learn precision_recall_fscore_support(average='macro', zero_division=0) over the labels "
    "present in references or valid predictions; computed by mmsoc from per-item confusion cells"
)


def compute(data: LabelInput) -> GroupResult:
    from mmsoc.metrics.stats import confusion_stats, mean_stat

    stats = {
        "accuracy": mean_stat(data.true_idx == data.pred_idx),
        **confusion_stats(data.true_idx, data.pred_idx, len(data.labels)),
    }
    return stats, {}


GROUP = MetricGroup(
    "labels",
    ("classification",),
    (
        Metric(
            "accuracy",
            True,
            "share of items whose parsed answer is the reference label (equal to scikit-learn "
            "accuracy_score); unparseable answers are wrong",
        ),
        Metric("macro_precision", True, _MACRO),
        Metric("macro_recall", True, _MACRO),
        Metric("macro_f1", True, _MACRO),
        Metric(
            "auc",
            True,
            "equal to scikit-learn roc_auc_score of the 0/1 indicator of the predicted label, one-vs-rest, "
            "macro over classes with both positive and negative items",
            undefined="the references hold one class",
        ),
    ),
    compute,
    order=60,
)
