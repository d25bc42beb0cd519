"""The batched metric paths give, item by item, the numbers of the libraries called once per pair."""

from __future__ import annotations

import random

import jiwer
import numpy as np
import pytest
from sacrebleu.metrics import BLEU

from mmsoc.metrics.bleu import segment_statistics, tokenize
from mmsoc.metrics.text import edit_rates
from mmsoc.tasks import score_task, score_task_detailed

TRICKY = [
    "",
    " ",
    "Hello, world.",
    ".leading dot",
    "trailing dot.",
    "1,000.50 costs $3-4",
    "a-b 5-6 x- -y",
    "&quot;quoted&quot; &amp; more",
    "line one\nline two",
    "hyphen-\nated",
    "<skipped> text",
    "tabs\there  ",
    "ünïcödé — “curly” ‘quotes’ «guillemets»",
    "{braces} [brackets] (parens) @at #hash ~tilde",
    "x.y,z 3.14,2",
    "word\u2028separator",
    "end with space .",
    "...",
    ",,",
    "e.g. U.S.A. 1.5.",
    "a\r\nb",
    "mixed CASE Words",
]


def _random_texts(rng: random.Random, n: int) -> list[str]:
    pieces = ["the", "cat", "Cat", "sat", "on", "mat", ".", ",", "1", "2.5", "-", "a-b", "é", "  ", "&amp;", "x"]
    return [
        "".join(rng.choice(pieces) + rng.choice(["", " ", " "]) for _ in range(rng.randint(0, 12))) for _ in range(n)
    ]


@pytest.fixture(scope="module")
def pairs() -> tuple[list[str], list[str]]:
    rng = random.Random(7)
    texts = TRICKY + _random_texts(rng, 400)
    refs = texts[:]
    rng.shuffle(refs)
    return texts, refs


def test_bleu_tokens_equal_sacrebleu(pairs):
    bleu = BLEU()
    texts = pairs[0]
    assert tokenize(bleu, texts) == [bleu._preprocess_segment(text) for text in texts]


def test_bleu_segment_statistics_equal_sacrebleu(pairs):
    hyps, refs = pairs
    expected = np.asarray(BLEU()._extract_corpus_statistics(hyps, [refs]), dtype=np.float64)
    np.testing.assert_array_equal(segment_statistics(hyps, refs), expected)


def test_edit_counts_equal_jiwer_alignments(pairs):
    hyps, refs = pairs
    got = edit_rates(hyps, refs)
    for key, output in (("wer", jiwer.process_words(refs, hyps)), ("cer", jiwer.process_characters(refs, hyps))):
        errors = [
            sum(
                max(c.ref_end_idx - c.ref_start_idx, c.hyp_end_idx - c.hyp_start_idx)
                for c in chunks
                if c.type != "equal"
            )
            for chunks in output.alignments
        ]
        np.testing.assert_array_equal(got[key].values[:, 0], errors)
        np.testing.assert_array_equal(got[key].values[:, 1], [len(r) for r in output.references])
        assert abs(got[key].value() - (output.wer if key == "wer" else output.cer)) < 1e-12


def test_repeated_pairs_score_like_the_libraries():
    preds = ["a cat", "a cat", "the dog", "a cat", "", "the dog"]
    refs = ["a cat", "the cat", "the dog barks", "a cat", "nothing", "the dog barks"]
    got = score_task("ocr", preds, refs)
    assert abs(got["wer"] - jiwer.wer(refs, preds)) < 1e-12
    assert abs(got["cer"] - jiwer.cer(refs, preds)) < 1e-12
    for n in (1, 2, 3, 4):
        assert abs(got[f"bleu{n}_sacrebleu"] - BLEU(max_ngram_order=n).corpus_score(preds, [refs]).score) < 1e-9
    details = score_task_detailed("social_context", preds, refs, fast=True)
    rouge = details.stats["rouge1_rouge_score"].values[:, 0]
    assert rouge[0] == rouge[3] == 1.0 and rouge[2] == rouge[5]
    assert details.stats["rouge1_rouge_score"].values.shape == (6, 2)
