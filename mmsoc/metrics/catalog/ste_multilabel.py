"""SuperTweetEval topic and emotion: macro-F1 over every label of the indicator matrices (scikit-learn
``f1_score(average='macro')`` on multi-label input, as the official scripts; labels never given nor
predicted count 0)."""

from __future__ import annotations

from mmsoc.metrics.inputs import TagInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: TagInput) -> GroupResult:
    import numpy as np

    from mmsoc.metrics.stats import ItemStat

    truth, pred = data.truth.astype(np.float64), data.pred.astype(np.float64)
    k = truth.shape[1]

    def macro(sums):
        tp, predicted, actual = sums[:, :k], sums[:, k : 2 * k], sums[:, 2 * k :]
        total = predicted + actual
        return np.divide(2 * tp, total, out=np.zeros_like(total), where=total > 0).mean(1)

    return {"macro_f1": ItemStat(np.hstack([truth * pred, pred, truth]), macro)}, {}


GROUP = MetricGroup(
    "ste_multilabel",
    ("ste_multilabel",),
    (
        Metric(
            "macro_f1",
            True,
            "scikit-learn f1_score(average='macro') over all labels of the indicator matrices "
            "(tweet_topic.py / tweet_emotion.py; the paper's average macro-F1); computed by mmsoc "
            "from per-item indicator counts",
            ("scikit-learn",),
        ),
    ),
    compute,
    order=70,
)
