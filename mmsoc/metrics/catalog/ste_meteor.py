"""SuperTweetEval QG: METEOR as evaluate's ``meteor`` computes it (nltk single_meteor_score, alpha 0.9, beta 3,
gamma 0.5), on nltk's Treebank word tokens."""

from __future__ import annotations

from mmsoc.metrics.inputs import TextInput
from mmsoc.metrics.registry import GroupResult, Metric, MetricGroup


def compute(data: TextInput) -> GroupResult:
    from nltk.tokenize import NLTKWordTokenizer

    from mmsoc.metrics.text import meteor

    stat, with_wordnet = meteor(data.predictions, data.references, tokenize=NLTKWordTokenizer().tokenize)
    note = (
        "with WordNet synonyms"
        if with_wordnet
        else "without WordNet synonyms (nltk's WordNet corpus is not installed): exact and stem matches only"
    )
    return {"meteor": stat}, {"meteor": note}


GROUP = MetricGroup(
    "ste_meteor",
    ("ste_qg",),
    (
        Metric(
            "meteor",
            True,
            "nltk meteor_score per item on NLTKWordTokenizer tokens (evaluate's word_tokenize without "
            "its sentence splitter, whose punkt data is not bundled), averaged (tweet_qg.py); whether "
            "WordNet synonyms were used is noted with the scores",
            ("nltk",),
        ),
    ),
    compute,
    order=70,
)
