"""METEOR per item with nltk."""

from __future__ import annotations

from mmsoc.metrics.inputs import TextInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: TextInput) -> GroupResult:
    from mmsoc.metrics.text import meteor

    stat, with_wordnet = meteor(data.predictions, data.references)
    note = (
        "with WordNet synonyms"
        if with_wordnet
        else "without WordNet synonyms (nltk's WordNet corpus is not installed): exact and stem matches only"
    )
    return {"meteor": stat}, {"meteor": note}


GROUP = MetricGroup(
    "meteor",
    ("generation",),
    (
        Metric(
            "meteor",
            True,
            "nltk meteor_score per item on whitespace tokens, Porter stemmer, averaged; whether "
            "WordNet synonyms were used is noted with the scores",
            ("nltk",),
        ),
    ),
    compute,
    order=35,
)
