"""SuperTweetEval NER: seqeval entity F1, macro-averaged over entity types (the paper's "average macro-F1")
and micro-averaged (the official script's ``overall_f1``), on IOB tags in seqeval's default reading."""

from __future__ import annotations

from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup
from mmsoc.metrics.suite_inputs import TagSequenceInput


def compute(data: TagSequenceInput) -> GroupResult:
    import numpy as np

    from mmsoc.metrics.stats import ItemStat
    from mmsoc.metrics.suite_stats import entity_counts

    values, types = entity_counts(data.truth, data.pred)
    k = len(types)

    def f1(tp, predicted, gold):
        total = predicted + gold
        return np.divide(2 * tp, total, out=np.zeros_like(total), where=total > 0)

    def macro(sums):
        tp, predicted, gold = sums[:, :k], sums[:, k : 2 * k], sums[:, 2 * k :]
        present = (predicted + gold) > 0
        return np.divide(
            (f1(tp, predicted, gold) * present).sum(1), present.sum(1), out=np.zeros(len(sums)), where=present.any(1)
        )

    def micro(sums):
        return f1(sums[:, :k].sum(1), sums[:, k : 2 * k].sum(1), sums[:, 2 * k :].sum(1))

    return {"macro_f1": ItemStat(values, macro), "overall_f1_script": ItemStat(values, micro)}, {"entity_types": types}


GROUP = MetricGroup(
    "ste_ner",
    ("ste_ner",),
    (
        Metric(
            "macro_f1",
            True,
            "seqeval entity F1 averaged over the entity types present (classification_report "
            "'macro avg'; the paper's average macro-F1); computed by mmsoc from per-item entity "
            "counts of seqeval get_entities",
            ("seqeval",),
        ),
        Metric(
            "overall_f1_script",
            True,
            "seqeval micro-averaged entity F1 (the official script's overall_f1)",
            ("seqeval",),
        ),
    ),
    compute,
    order=70,
)
