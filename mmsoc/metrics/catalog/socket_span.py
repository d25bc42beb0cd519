"""SocKET span tasks, as the official ``experiments/zeroshot/eval.py`` scores them: per item, the candidate
spans snapped to the input text (longest common substring, at least 3 characters), every occurrence of
each predicted and gold span marked by character offset, and the Dice coefficient of the two offset sets
(1 when both are empty); ``f1`` is its mean over all items (a missing answer predicts nothing) and
``hit_rate`` the share of items with a snapped span."""

from __future__ import annotations

from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup
from mmsoc.metrics.suite_inputs import SpanInput


def compute(data: SpanInput) -> GroupResult:
    from mmsoc.metrics.spans import char_offsets, dice, snapped_spans
    from mmsoc.metrics.stats import mean_stat

    scores, hits = [], []
    for text, gold, candidates in zip(data.texts, data.gold, data.candidates):
        spans = snapped_spans(text, candidates) if candidates is not None else []
        hits.append(bool(spans))
        scores.append(dice(char_offsets(text, spans), char_offsets(text, gold)))
    return {"f1": mean_stat(scores), "hit_rate": mean_stat(hits)}, {"missing_answers": hits.count(False)}


GROUP = MetricGroup(
    "socket_span",
    ("socket_span",),
    (
        Metric(
            "f1",
            True,
            "mean over items of the character-offset Dice of snapped predicted spans and gold spans "
            "(eval.py get_span_f1)",
        ),
        Metric("hit_rate", True, "share of items whose answer gave a span of 3+ characters after snapping"),
    ),
    compute,
    order=70,
)
