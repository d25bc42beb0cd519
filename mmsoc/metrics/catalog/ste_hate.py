"""SuperTweetEval hate speech: the paper's combined F1 and the official script's.

Paper (§4.2): micro-F1 of hate vs not-hate (all hate classes as one; over every item it is the accuracy of
that grouping, an unread answer wrong) averaged with the macro-F1 of the 7 hate classes. Script
(tweet_hate.py): micro-F1 over the 7 hate classes (``labels=range(7)``) averaged with the macro-F1 of the
hate/not-hate grouping, where an unread answer counts as not hate (the script drops such lines, which
misaligns the rest)."""

from __future__ import annotations

from mmsoc.metrics.inputs import LabelInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup

HATE_CLASSES = 7
"""Classes 0-6 are hate sub-classes; 7 is not_hate (the official label order)."""


def _f1(tp, predicted, actual):
    import numpy as np

    total = predicted + actual
    return np.divide(2 * tp, total, out=np.zeros_like(total, dtype=np.float64), where=total > 0)


def compute(data: LabelInput) -> GroupResult:
    import numpy as np

    from mmsoc.metrics.stats import ItemStat

    n = len(data.labels)
    width = n + 1
    cells = np.zeros((len(data.true_idx), n * width))
    cells[np.arange(len(data.true_idx)), data.true_idx * width + data.pred_idx] = 1.0
    h = HATE_CLASSES

    def parts(sums):
        m = sums.reshape(len(sums), n, width)
        labels = np.arange(h)
        tp, predicted, actual = m[:, labels, labels], m[:, :, labels].sum(1), m[:, labels, :].sum(2)
        hate_hate = m[:, :h, :h].sum((1, 2))
        hate_other = m[:, :h, h:].sum((1, 2))  # gold hate, answered not_hate or unread
        other_hate = m[:, h:, :h].sum((1, 2))  # gold not_hate, answered a hate class
        other_other = m[:, h:, h:].sum((1, 2))  # gold not_hate, answered not_hate or unread
        return tp, predicted, actual, hate_hate, hate_other, other_hate, other_other, m[:, h, h], m.sum((1, 2))

    def paper(sums):
        tp, predicted, actual, hate_hate, _, _, _, not_not, total = parts(sums)
        binary_micro = np.divide(hate_hate + not_not, total, out=np.zeros(len(sums)), where=total > 0)
        return (binary_micro + _f1(tp, predicted, actual).mean(1)) / 2

    def script(sums):
        tp, predicted, actual, hh, ho, oh, oo, _, _ = parts(sums)
        micro = _f1(tp.sum(1), predicted.sum(1), actual.sum(1))
        binary = np.stack([_f1(oo, oo + ho, oo + oh), _f1(hh, hh + oh, hh + ho)], axis=1)
        present = np.stack([oo + ho + oh > 0, hh + oh + ho > 0], axis=1)
        macro = np.divide((binary * present).sum(1), present.sum(1), out=np.zeros(len(sums)), where=present.any(1))
        return (micro + macro) / 2

    return {"combined_f1": ItemStat(cells, paper), "combined_f1_script": ItemStat(cells, script)}, {}


GROUP = MetricGroup(
    "ste_hate",
    ("ste_hate",),
    (
        Metric(
            "combined_f1",
            True,
            "the paper's combined F1: (micro-F1 of hate vs not-hate + macro-F1 over the 7 hate "
            "classes, scikit-learn labels=range(7)) / 2; computed by mmsoc from confusion cells",
        ),
        Metric(
            "combined_f1_script",
            True,
            "the official script's: (scikit-learn micro-F1 with labels=range(7) + "
            "macro-F1 of hate vs not-hate) / 2, unread answers as not hate",
            ("scikit-learn",),
        ),
    ),
    compute,
    order=70,
)
