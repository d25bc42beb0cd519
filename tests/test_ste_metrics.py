"""SuperTweetEval metrics against independent references: scikit-learn (macro/micro F1, the official scripts'
formulas re-written small), imbalanced-learn's macro MAE, seqeval, scipy's Spearman, nltk's METEOR and the
SQuAD v1.1 answer F1 re-written small; the official readers beside the lenient ones."""

from __future__ import annotations

import re
import string
from collections import Counter

import numpy as np
import pytest
from imblearn.metrics import macro_averaged_mean_absolute_error
from nltk.tokenize import NLTKWordTokenizer
from nltk.translate.meteor_score import single_meteor_score
from scipy.stats import spearmanr
from seqeval.metrics import f1_score as seqeval_f1
from sklearn.metrics import accuracy_score, f1_score

from mmsoc.metrics.stats import replicate_values, resample_counts
from mmsoc.metrics.text import _NoSynonyms, wordnet_or_none
from mmsoc.tasks import parse_response, score_task, score_task_detailed
from mmsoc.tasks.supertweeteval.tasks import EMOTIONS, HATE, NER_TAGS, SENTIMENT, TOPICS

RNG = np.random.default_rng(11)


def _task(name: str) -> str:
    return f"supertweeteval/{name}"


def test_yes_no_accuracy():
    truth = RNG.choice(["no", "yes"], 40)
    pred = [t if i % 3 else ("maybe" if i % 2 else None) for i, t in enumerate(truth)]
    metrics = score_task(_task("tempo_wic"), pred, list(truth))
    assert metrics["accuracy"] == pytest.approx(accuracy_score(truth, [p or "x" for p in pred]))


def test_sentiment_paper_and_script_scores():
    truth = np.concatenate([np.arange(5), RNG.integers(0, 5, 75)])
    pred = RNG.integers(0, 5, 80)
    metrics = score_task(_task("tweet_sentiment"), [SENTIMENT[p] for p in pred], [SENTIMENT[t] for t in truth])
    mae = macro_averaged_mean_absolute_error(truth, pred)
    assert metrics["mae_m"] == pytest.approx(mae, abs=1e-12)
    assert metrics["mae_m_score"] == pytest.approx(max(0.0, 1 - mae), abs=1e-12)
    assert metrics["macro_f1_script"] == pytest.approx(f1_score(truth, pred, average="macro"), abs=1e-12)


def test_sentiment_unread_answers_are_class_minus_one():
    # hand-worked: class 0 errors |-1 - 0| = 1 and 0 -> 0.5; class 1 error 0 -> MAE^M = 0.25
    metrics = score_task(
        _task("tweet_sentiment"), [None, SENTIMENT[0], SENTIMENT[1]], [SENTIMENT[0], SENTIMENT[0], SENTIMENT[1]]
    )
    assert metrics["mae_m"] == pytest.approx(0.25) and metrics["mae_m_score"] == pytest.approx(0.75)
    assert metrics["macro_f1_script"] == pytest.approx(f1_score([0, 0, 1], [-1, 0, 1], average="macro"))
    worst = score_task(_task("tweet_sentiment"), [None] * 4, [SENTIMENT[4]] * 4)
    assert worst["mae_m"] == pytest.approx(5.0) and worst["mae_m_score"] == 0.0  # capped


def _paper_hate(truth, pred):
    """The paper's combined F1 (§4.2), written small: binary micro-F1 + macro-F1 over the 7 hate classes."""
    binary_truth = [int(t < 7) for t in truth]
    binary_pred = [2 if p == 8 else int(p < 7) for p in pred]  # an unread answer is neither: always wrong
    return (
        f1_score(binary_truth, binary_pred, average="micro")
        + f1_score(truth, pred, labels=list(range(7)), average="macro", zero_division=0)
    ) / 2


def _script_hate(truth, pred):
    """tweet_hate.py's formula on aligned predictions (8 = unread)."""
    multi = f1_score(truth, pred, labels=list(range(7)), average="micro", zero_division=0)
    binary = f1_score(
        [1 if t in range(7) else 0 for t in truth],
        [1 if p in range(7) else 0 for p in pred],
        average="macro",
        zero_division=0,
    )
    return (multi + binary) / 2


def test_hate_combined_f1_both_ways():
    for _ in range(5):
        truth = RNG.choice([0, 1, 2, 3, 7, 7, 7, 5], 60)
        pred = RNG.choice([0, 1, 2, 7, 7, 8, 6], 60)
        metrics = score_task(_task("tweet_hate"), [HATE[p] if p < 8 else "??" for p in pred], [HATE[t] for t in truth])
        assert metrics["combined_f1"] == pytest.approx(_paper_hate(truth, pred), abs=1e-12)
        assert metrics["combined_f1_script"] == pytest.approx(_script_hate(truth, pred), abs=1e-12)


def test_multilabel_macro_f1_over_every_label():
    truth = (RNG.random((50, len(TOPICS))) < 0.1).astype(int)
    pred = (RNG.random((50, len(TOPICS))) < 0.1).astype(int)
    names = lambda row: [TOPICS[j] for j in np.flatnonzero(row)]
    metrics = score_task(_task("tweet_topic"), [names(r) for r in pred], [names(r) for r in truth])
    assert metrics["macro_f1"] == pytest.approx(f1_score(truth, pred, average="macro", zero_division=0), abs=1e-12)


def _tags(n: int) -> list[str]:
    tags, i = ["O"] * n, 0
    while i < n:
        if RNG.random() < 0.3:
            kind = RNG.choice(["person", "location", "event", "group"])
            tags[i] = f"B-{kind}"
            for j in range(i + 1, min(n, i + int(RNG.integers(1, 3)))):
                tags[j] = f"I-{kind}" if RNG.random() < 0.8 else f"I-{RNG.choice(['person', 'group'])}"
            i += 2
        i += 1
    return tags


def test_ner_macro_and_micro_against_seqeval():
    truth = [_tags(int(RNG.integers(3, 12))) for _ in range(40)]
    pred = [_tags(len(t)) for t in truth]
    refs = [{"tokens": [f"w{i}" for i in range(len(t))], "tags": t} for t in truth]
    scores = score_task_detailed(_task("tweet_ner7"), [None] * 40, refs)
    assert scores.metrics["macro_f1"] == 0.0
    from mmsoc.metrics.catalog.ste_ner import compute
    from mmsoc.metrics.suite_inputs import TagSequenceInput

    stats, _ = compute(TagSequenceInput(truth, pred))
    assert stats["macro_f1"].value() == pytest.approx(seqeval_f1(truth, pred, average="macro"), abs=1e-12)
    assert stats["overall_f1_script"].value() == pytest.approx(seqeval_f1(truth, pred, average="micro"), abs=1e-12)


def test_ner_answers_become_tags_as_the_script_writes_them():
    ref = {
        "tokens": ["New", "music", "via", "@Columbia_Records", "and", "Columbia", "Records"],
        "tags": ["O", "O", "O", "B-corporation", "O", "B-corporation", "I-corporation"],
    }
    answer = "@Columbia_Records: corporation, Columbia Records: corporation"
    official = parse_response(_task("tweet_ner7"), answer, "strict")
    lenient = parse_response(_task("tweet_ner7"), answer, "lenient")
    strict_metrics = score_task(_task("tweet_ner7"), [official.label], [ref])
    lenient_metrics = score_task(_task("tweet_ner7"), [lenient.label], [ref])
    # the script keeps the space after ", " in " Columbia Records" and never finds it: one of two entities
    assert strict_metrics["overall_f1_script"] == pytest.approx(2 * 1 / (1 + 2))
    assert lenient_metrics["overall_f1_script"] == pytest.approx(1.0)
    assert official.label["entities"][1] == [" Columbia Records", "corporation"]


def test_emoji_top5_accuracy():
    gold = ["❤", "😂", "🔥", "😍"]
    preds = ["😂,❤,🔥,😍,🙏", "🔥,😍,🙏,😭,✨,😂", None, "x,y"]
    metrics = score_task(_task("tweet_emoji"), preds, gold)
    assert metrics["accuracy_top5"] == pytest.approx(1 / 4)  # the second has 😂 sixth
    lenient = parse_response(_task("tweet_emoji"), "I'd pick 🇺🇸 then ❤️ and 🔥", "lenient")
    assert lenient.label == ["🇺🇸", "❤️", "🔥"]


def test_spearman_capped_and_uncapped_against_scipy():
    truth = RNG.uniform(0, 5, 60).round(1)
    pred = (5 - truth + RNG.normal(0, 1, 60)).round(0)  # anti-correlated, with ties
    answers = [f"{p:g}" if i % 9 else "no idea" for i, p in enumerate(pred)]
    metrics = score_task(_task("tweet_intimacy"), answers, list(truth))
    read = [p if i % 9 else 0.0 for i, p in enumerate(pred)]  # the script's float(line) else 0
    rho = spearmanr(truth, read)[0]
    assert rho < 0
    assert metrics["spearman_script"] == pytest.approx(rho, abs=1e-12)
    assert metrics["spearman"] == 0.0


def test_spearman_bootstrap_replicates_are_spearman_of_the_resample():
    truth = RNG.uniform(0, 5, 30).round(0)
    pred = truth + RNG.normal(0, 1, 30).round(0)
    scores = score_task_detailed(_task("tweet_similarity"), list(pred), list(truth))
    counts = resample_counts(30, 4, seed=2)
    for value, weights in zip(replicate_values(scores.stats["spearman_script"], counts), counts[0]):
        rows = np.repeat(np.arange(30), weights.astype(int))
        assert value == pytest.approx(spearmanr(truth[rows], pred[rows])[0], abs=1e-12)


def _squad_f1(prediction: str, truth: str) -> float:
    """SQuAD v1.1's evaluation script, written small."""

    def normalize(s):
        s = "".join(ch for ch in s.lower() if ch not in set(string.punctuation))
        return " ".join(re.sub(r"\b(a|an|the)\b", " ", s).split())

    p, t = normalize(prediction).split(), normalize(truth).split()
    common = Counter(p) & Counter(t)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision, recall = same / len(p), same / len(t)
    return 2 * precision * recall / (precision + recall)


def test_qa_answer_f1():
    preds = ["a website", "The Vine!", "", "Ana Silva and Tom", None]
    refs = ["website", "vine", "", "Ana Silva", "Tom"]
    metrics = score_task(_task("tweet_qa"), preds, refs)
    assert metrics["f1"] == pytest.approx(np.mean([_squad_f1(p or "", r) for p, r in zip(preds, refs)]))
    assert metrics["exact_match"] == pytest.approx(3 / 5)  # two empty strings match exactly (F1 gives them 0)


def test_qg_meteor_against_nltk():
    preds = ["who will speak about the fair?", "what is the name of the vine?", ""]
    refs = ["who will speak about the town fair?", "what site does the link take you to?", "who is it?"]
    metrics = score_task(_task("tweet_qg"), preds, refs)
    tokenize = NLTKWordTokenizer().tokenize
    wordnet = wordnet_or_none() or _NoSynonyms()
    expected = np.mean([single_meteor_score(tokenize(r), tokenize(p), wordnet=wordnet) for p, r in zip(preds, refs)])
    assert metrics["meteor"] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("task", "line", "official", "lenient"),
    [
        ("tweet_sentiment", "negative or neutral", "negative or neutral", "negative or neutral"),
        ("tweet_sentiment", "Negative or neutral.", None, "negative or neutral"),
        ("tweet_sentiment", "'negative'", None, "negative"),
        ("tweet_hate", "not hate", None, "not_hate"),
        ("tweet_hate", "hate_race", "hate_race", "hate_race"),
        ("tempo_wic", "yes", "yes", "yes"),
        ("tempo_wic", "Yes, it does.", None, "yes"),
        ("tweet_nerd", " no", None, "no"),
        ("tweet_intimacy", "2.5", 2.5, 2.5),
        ("tweet_intimacy", "I'd say 3", None, 3.0),
        ("tweet_qa", "Answer: a website", "Answer: a website", "a website"),
    ],
)
def test_official_and_lenient_readers(task, line, official, lenient):
    assert parse_response(_task(task), line, "strict").label == official
    parsed = parse_response(_task(task), line, "lenient")
    assert (parsed.label if parsed.ok else None) == lenient


def test_multilabel_readers():
    strict = parse_response(_task("tweet_emotion"), "anger,joy, love,discouraged", "strict")
    assert strict.label == ["anger", "joy"] and not strict.ok  # the script drops " love" and the unknown word
    lenient = parse_response(_task("tweet_emotion"), "Anger, joy; love", "lenient")
    assert lenient.label == ["anger", "joy", "love"] and lenient.ok
    assert set(EMOTIONS) >= set(lenient.label) and NER_TAGS[-1] == "O"
