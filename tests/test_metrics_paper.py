"""The paper's text metrics (MM-Soc appendix D.1): pltrdy ROUGE, NLTK BLEU and Kondrak bigram similarity,
each against its reference package called here or a hand-worked case, with the other implementations beside."""

from __future__ import annotations

import random

import numpy as np
import pytest
from metric_references import lucene_ngram_distance
from nltk.translate.bleu_score import corpus_bleu
from rouge import Rouge
from rouge_score import rouge_scorer
from strsimpy.ngram import NGram

from mmsoc.metrics.kondrak import ngram_similarity
from mmsoc.metrics.registry import find_metric, metric_keys
from mmsoc.metrics.stats import replicate_values, resample_counts
from mmsoc.tasks import get_task, score_task, score_task_detailed

PAIRS = [  # (prediction, reference)
    ("a cat sat on the mat", "the cat sat on a mat"),
    ("The cats are running.", "the cat is running"),
    ("A man, wearing a hat, walks his dogs", "a man wearing a hat walked his dog."),
]
PRED, REF = [p for p, _ in PAIRS], [r for _, r in PAIRS]
NLTK_WARNINGS = pytest.mark.filterwarnings("ignore::UserWarning:nltk.translate.bleu_score")


def test_headline_rouge_l_is_pltrdy_and_differs_from_rouge_score():
    got = score_task("image_description", PRED, REF, fast=True)
    # by hand (pltrdy: sentences split on '.', words on spaces, word sets): pair 1 LCS "cat sat on mat",
    # 4 of 6 distinct words each side -> F 2/3; pair 2 only "running" is shared (case and the full stop
    # matter) -> F 1/4; pair 3 LCS {wearing, a, his} over 7 reference and 8 prediction words -> R 3/7,
    # P 3/8, F 0.4
    hand = [2 / 3, 1 / 4, 0.4]
    assert got["rougeL"] == pytest.approx(np.mean(hand), abs=1e-7)  # pltrdy's F carries a 1e-8 guard
    direct = Rouge().get_scores(PRED, REF, avg=True)
    for key, name in (("rouge1", "rouge-1"), ("rouge2", "rouge-2"), ("rougeL", "rouge-l")):
        assert abs(got[key] - direct[name]["f"]) < 1e-12
    stemmed = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    assert abs(got["rougeL_rouge_score"] - np.mean([stemmed.score(r, p)["rougeL"].fmeasure for p, r in PAIRS])) < 1e-12
    assert got["rougeL_rouge_score"] - got["rougeL"] > 0.3  # 0.81 against 0.44 on the same three pairs
    assert get_task("image_description").headline == get_task("social_context").headline == "rougeL"
    assert "pltrdy" in find_metric("generation", "rougeL").method


def test_pltrdy_rouge_scores_a_side_without_sentence_as_zero():
    with pytest.raises(ValueError):
        Rouge().get_scores("...", "a reference")  # the package refuses it
    details = score_task_detailed("social_context", ["...", "", "a b. c"], ["a reference", "x y", "a b. c"], fast=True)
    values = details.stats["rougeL"].values[:, 0]
    assert values[0] == values[1] == 0.0
    assert values[2] == pytest.approx(Rouge().get_scores("a b. c", "a b. c")[0]["rouge-l"]["f"], abs=0)


def test_long_sentences_need_no_recursion_limit_of_the_caller():
    words = [f"w{i % 50}" for i in range(700)]  # one 700-word sentence each side: LCS recursion ~1,400 deep
    got = score_task("image_description", [" ".join(words)], [" ".join(reversed(words))], fast=True)
    assert 0 < got["rougeL"] < 1


@NLTK_WARNINGS
@pytest.mark.parametrize("task", ["ocr", "image_description"])
def test_bleu_is_nltk_corpus_bleu(task):
    rng = random.Random(3)
    vocab = ["the", "a", "cat", "dog", "meme", "text", "red", "blue", "runs"]
    pred = [" ".join(rng.choice(vocab) for _ in range(rng.randint(0, 9))) for _ in range(40)]
    ref = [" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 9))) for _ in range(40)]
    got = score_task(task, pred, ref, fast=True)
    for n in (1, 2, 3, 4):
        expected = corpus_bleu([[r.split()] for r in ref], [p.split() for p in pred], weights=(1 / n,) * n)
        assert abs(got[f"bleu{n}"] - expected) < 1e-12, n


def test_bleu_hand_worked():
    # prediction "the cat sat" against "the cat sat down": unigram p 3/3, bigram p 2/2, brevity
    # penalty exp(1 - 4/3); BLEU-1 = BP, BLEU-2 = BP * sqrt(1 * 1)
    got = score_task("ocr", ['"the cat sat"'], ["the cat sat down"])
    assert got["bleu1"] == pytest.approx(np.exp(1 - 4 / 3), abs=1e-15)
    assert got["bleu2"] == pytest.approx(np.exp(1 - 4 / 3), abs=1e-15)
    assert got["bleu1_sacrebleu"] == pytest.approx(100 * np.exp(1 - 4 / 3), abs=1e-9)  # sacrebleu's 0-100 scale


@NLTK_WARNINGS
def test_bleu_bootstrap_replicates_equal_nltk_on_resampled_items():
    pred = ["a cat sat", "the dog", "", "red meme text here", "cat"]
    ref = ["a cat sat down", "a dog", "nothing", "red meme text", "the cat"]
    details = score_task_detailed("ocr", pred, ref)
    counts = resample_counts(len(pred), 5, seed=1)
    for replicate in range(5):
        rows = np.repeat(np.arange(len(pred)), counts[0][replicate].astype(int))
        for n in (1, 4):
            expected = corpus_bleu(
                [[ref[i].split()] for i in rows], [pred[i].split() for i in rows], weights=(1 / n,) * n
            )
            assert abs(replicate_values(details.stats[f"bleu{n}"], counts)[replicate] - expected) < 1e-12


def test_kondrak_bigram_hand_worked():
    # "abc" vs "abd", bigrams with one padding mark: the only partial mismatch is the last bigram
    # ("bc" vs "bd", 1 of 2 characters), so the distance is 0.5 / 3 and the similarity 5/6
    assert ngram_similarity(["abc"], ["abd"])[0] == pytest.approx(5 / 6, abs=1e-15)
    assert list(ngram_similarity(["", "", "a", "same"], ["", "x", "ab", "same"])) == [1.0, 0.0, 0.5, 1.0]


def test_kondrak_bigram_equals_lucene_and_strsimpy_where_its_port_is_sound():
    rng = random.Random(0)
    sources = ["".join(rng.choice("abc ") for _ in range(rng.randint(0, 14))) for _ in range(400)]
    targets = ["".join(rng.choice("abc ") for _ in range(rng.randint(0, 30))) for _ in range(400)]
    for n in (2, 3):
        got = ngram_similarity(sources, targets, n)
        expected = [1 - lucene_ngram_distance(s, t, n) for s, t in zip(sources, targets)]
        assert np.abs(got - expected).max() < 1e-12
    assert (ngram_similarity(sources, targets) == ngram_similarity(targets, sources)).all()
    for pred, ref in PAIRS:  # strsimpy.NGram agrees on these (the research's worked example: 0.675, 0.667, 0.806)
        assert ngram_similarity([pred], [ref])[0] == pytest.approx(1 - NGram(2).distance(pred, ref), abs=1e-15)
    # strsimpy 0.2.1 starts its inner loop at i = 0 and reads wrapped cells: with a much longer second
    # string it gives a far smaller distance, and a different one with the arguments swapped
    short, long = "aa", " a cbcabbbb aac accacbc a"
    assert NGram(2).distance(short, long) == pytest.approx(0.6)
    assert lucene_ngram_distance(short, long) == pytest.approx(0.94) == NGram(2).distance(long, short)
    assert ngram_similarity([short], [long])[0] == pytest.approx(0.06)


def test_generation_bigram_keys_say_what_they_are():
    got = score_task("image_description", PRED, REF, fast=True)
    assert got["bigram_similarity"] == pytest.approx(np.mean([1 - lucene_ngram_distance(p, r) for p, r in PAIRS]))
    assert got["bigram_similarity"] == pytest.approx(np.mean([0.675, 2 / 3, 0.8055555555555556]))
    # word bigrams: pair 1 shares {cat sat, sat on} of 8 distinct bigrams; pair 2 none; pair 3 only
    # {wearing a} of 13 (whitespace tokens keep "man," "hat," and "dog.")
    assert got["word_bigram_jaccard"] == pytest.approx(np.mean([2 / 8, 0.0, 1 / 13]))
    assert "Kondrak" in find_metric("generation", "bigram_similarity").method
    assert "Jaccard" in find_metric("generation", "word_bigram_jaccard").method


def test_every_metric_names_its_package_and_settings():
    for kind in ("classification", "multilabel", "ocr", "generation"):
        for key in metric_keys(kind):
            metric = find_metric(kind, key)
            line = metric.describe()
            assert line.startswith(metric.method) and len(metric.method) > 30, key
            for package in metric.packages:
                assert f"{package} " in line and "not installed" not in line, (key, package)
    assert "rouge 1.0.1" in find_metric("generation", "rougeL").describe()
    assert "nltk 3.10.4" in find_metric("ocr", "bleu4").describe()
    assert "sacrebleu" in find_metric("ocr", "bleu4_sacrebleu").describe()
    assert "rouge-score" in find_metric("generation", "rougeL_rouge_score").describe()
