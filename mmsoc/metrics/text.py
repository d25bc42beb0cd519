"""Text metrics as thin wrappers: jiwer (WER, CER), nltk and sacrebleu (BLEU), pltrdy rouge and
rouge-score (ROUGE), nltk (METEOR), scikit-learn count vectors (token F1, word-bigram Jaccard).
Each returns per-item statistics."""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable, Iterator, Sequence

import numpy as np
from jiwer.transformations import cer_default, wer_default
from nltk.stem import porter
from nltk.translate import meteor_score as nltk_meteor
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cpdist
from rouge import Rouge
from rouge_score import rouge_scorer, tokenize, tokenizers
from sacrebleu.metrics import BLEU
from sklearn.feature_extraction.text import CountVectorizer

from mmsoc.metrics import bleu as bleu_stats
from mmsoc.metrics import nltk_bleu
from mmsoc.metrics.stats import ItemStat, error_rate_stat, mean_stat
from mmsoc.metrics.text_groups import BLEU_ORDERS

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")
PLTRDY_TYPES = {"rouge1": "rouge-1", "rouge2": "rouge-2", "rougeL": "rouge-l"}


def edit_rates(predictions: Sequence[str], references: Sequence[str]) -> dict[str, ItemStat]:
    """Corpus WER and CER: total edits over total reference words / characters, on jiwer's default
    transforms.

    jiwer counts an item's edits (S + D + I) from rapidfuzz's optimal Levenshtein opcodes over the
    same sequences, so they equal rapidfuzz's Levenshtein distance, computed here for all pairs in
    one call instead of building jiwer's alignment objects.
    """
    ref_words, hyp_words = wer_default(list(references)), wer_default(list(predictions))
    vocab: dict[str, int] = {}
    ref_ids, hyp_ids = (
        [[vocab.setdefault(w, len(vocab)) for w in words] for words in side] for side in (ref_words, hyp_words)
    )
    ref_chars, hyp_chars = (["".join(chars) for chars in cer_default(list(side))] for side in (references, predictions))
    return {"wer": _edit_stat(ref_ids, hyp_ids), "cer": _edit_stat(ref_chars, hyp_chars)}


def _edit_stat(references: list, hypotheses: list) -> ItemStat:
    errors = cpdist(references, hypotheses, scorer=Levenshtein.distance, dtype=np.int64)
    return error_rate_stat(errors, [len(ref) for ref in references])


def bleu(predictions: Sequence[str], references: Sequence[str]) -> dict[str, ItemStat]:
    """NLTK corpus BLEU-1..4 on whitespace tokens, no smoothing, on a 0-1 scale (keys ``bleu1``..``bleu4``).

    BLEU-n has uniform weights 1/n over orders 1..n, i.e. ``corpus_bleu(..., weights=(1/n,) * n)``.
    """
    top = max(BLEU_ORDERS)
    stats = nltk_bleu.statistics([p.split() for p in predictions], [r.split() for r in references], top)
    return {
        f"bleu{n}": ItemStat(stats, functools.partial(nltk_bleu.corpus_bleu, order=n, max_order=top))
        for n in BLEU_ORDERS
    }


def bleu_sacrebleu(predictions: Sequence[str], references: Sequence[str]) -> dict[str, ItemStat]:
    """Corpus BLEU-1..4 of sacrebleu (defaults: 13a tokens, exp smoothing), on its 0-100 scale
    (keys ``bleu1_sacrebleu``..``bleu4_sacrebleu``).

    BLEU-n uses n-gram orders 1..n with uniform weights, exactly ``BLEU(max_ngram_order=n)``.
    """
    stats = bleu_stats.segment_statistics(predictions, references, max(BLEU_ORDERS))
    return {f"bleu{n}_sacrebleu": ItemStat(stats, functools.partial(_bleu_from_sums, order=n)) for n in BLEU_ORDERS}


def _bleu_from_sums(sums: np.ndarray, order: int) -> np.ndarray:
    top = max(BLEU_ORDERS)
    return np.array(
        [
            BLEU.compute_bleu(
                correct=[int(x) for x in row[2 : 2 + order]],
                total=[int(x) for x in row[2 + top : 2 + top + order]],
                sys_len=int(row[0]),
                ref_len=int(row[1]),
                smooth_method="exp",
                max_ngram_order=order,
            ).score
            for row in sums
        ]
    )


def _memoised_stemmer(mode: str):
    """nltk's Porter stemmer in ``mode`` with ``stem`` memoised per word (the same stems, each computed once)."""
    stem = functools.lru_cache(maxsize=None)(porter.PorterStemmer(mode).stem)
    return type("MemoisedStemmer", (), {"stem": staticmethod(stem)})()


class _CachedStemTokenizer(tokenizers.Tokenizer):
    """rouge-score's own tokenisation with its Porter stemmer, memoised per word (same tokens)."""

    def __init__(self) -> None:
        self._stemmer = _memoised_stemmer(porter.PorterStemmer.ORIGINAL_ALGORITHM)

    def tokenize(self, text: str) -> list[str]:
        return tokenize.tokenize(text, self._stemmer)


def rouge(predictions: Sequence[str], references: Sequence[str]) -> dict[str, ItemStat]:
    """ROUGE-1/2/L F per item with pltrdy ``rouge`` (``Rouge().get_scores(hypothesis, reference)``),
    averaged over items, which is its ``avg=True``; keys ``rouge1``, ``rouge2``, ``rougeL``.

    The package raises on a side with no sentence (empty, or only full stops); such a pair scores 0,
    as a pair with no overlap does.
    """
    scorer = Rouge()
    values = np.zeros((len(predictions), len(PLTRDY_TYPES)), dtype=np.float64)
    with _recursion_room(predictions, references):
        for row, (pred, ref) in enumerate(zip(predictions, references)):
            if _has_sentence(pred) and _has_sentence(ref):
                scores = scorer.get_scores(pred, ref)[0]
                values[row] = [scores[name]["f"] for name in PLTRDY_TYPES.values()]
    return {key: mean_stat(values[:, col]) for col, key in enumerate(PLTRDY_TYPES)}


def _has_sentence(text: str) -> bool:
    """Whether pltrdy rouge finds a sentence in ``text`` (it splits on full stops and drops empty parts)."""
    return any(text.split("."))


@contextlib.contextmanager
def _recursion_room(*sides: Sequence[str]) -> Iterator[None]:
    """pltrdy rouge recovers each LCS recursively (depth up to the two sentences' word counts): make room."""
    longest = max((len(sentence.split()) for side in sides for text in side for sentence in text.split(".")), default=0)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 2 * longest + 200))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def rouge_stemmed(predictions: Sequence[str], references: Sequence[str]) -> dict[str, ItemStat]:
    """ROUGE-1/2/L F-measure per item (rouge-score, Porter stemming on), averaged over items; keys
    ``rouge1_rouge_score``, ``rouge2_rouge_score``, ``rougeL_rouge_score``."""
    scorer = rouge_scorer.RougeScorer(list(ROUGE_TYPES), tokenizer=_CachedStemTokenizer())
    scores = [scorer.score(ref, pred) for pred, ref in zip(predictions, references)]
    return {f"{key}_rouge_score": mean_stat([s[key].fmeasure for s in scores]) for key in ROUGE_TYPES}


class _NoSynonyms:
    """Stands in for WordNet in nltk's METEOR when the corpus is missing: no synonym matches."""

    @staticmethod
    def synsets(word: str) -> list:
        return []


@functools.lru_cache(maxsize=1)
def wordnet_or_none():
    """nltk's WordNet reader if its corpus is installed, else None."""
    from nltk.corpus import wordnet

    try:
        wordnet.ensure_loaded()
    except LookupError:
        return None
    return wordnet


def meteor(
    predictions: Sequence[str], references: Sequence[str], tokenize: Callable[[str], list[str]] = str.split
) -> tuple[ItemStat, bool]:
    """nltk METEOR per item on ``tokenize``'s tokens (whitespace by default), averaged; returns (stat, used
    WordNet synonyms)."""
    wordnet = wordnet_or_none()
    stemmer = _memoised_stemmer(porter.PorterStemmer.NLTK_EXTENSIONS)
    values = [
        nltk_meteor.meteor_score([tokenize(ref)], tokenize(pred), stemmer=stemmer, wordnet=wordnet or _NoSynonyms())
        for pred, ref in zip(predictions, references)
    ]
    return mean_stat(values), wordnet is not None


def _count_pairs(predictions: Sequence[str], references: Sequence[str], **options) -> tuple:
    """Count matrices (predictions, references) over one shared vocabulary of whitespace tokens."""
    vectorizer = CountVectorizer(tokenizer=str.split, token_pattern=None, **options)
    try:
        matrix = vectorizer.fit_transform(list(predictions) + list(references)).tocsr()
    except ValueError:  # empty vocabulary: no item has a single token (or bigram)
        empty = np.zeros((len(predictions), 1))
        return empty, empty
    return matrix[: len(predictions)], matrix[len(predictions) :]


def token_f1(predictions: Sequence[str], references: Sequence[str]) -> ItemStat:
    """Bag-of-words F1 per item between whitespace tokens, averaged (1 when both sides are empty).

    Used as OCR's macro-F1: overlap = sum over tokens of min(count in prediction, count in reference).
    """
    pred, ref = _count_pairs(predictions, references, lowercase=False)
    overlap = np.asarray(_minimum(pred, ref).sum(1)).ravel()
    total = np.asarray(pred.sum(1)).ravel() + np.asarray(ref.sum(1)).ravel()
    f1 = np.where(total == 0, 1.0, 2 * overlap / np.maximum(total, 1))
    return mean_stat(f1)


def word_bigram_jaccard(predictions: Sequence[str], references: Sequence[str]) -> ItemStat:
    """Jaccard similarity of the sets of lower-cased word bigrams per item, averaged (0 if both empty)."""
    pred, ref = _count_pairs(predictions, references, lowercase=True, ngram_range=(2, 2), binary=True)
    inter = np.asarray(_minimum(pred, ref).sum(1)).ravel()
    union = np.asarray(pred.sum(1)).ravel() + np.asarray(ref.sum(1)).ravel() - inter
    return mean_stat(np.where(union == 0, 0.0, inter / np.maximum(union, 1)))


def _minimum(a, b):
    return a.minimum(b) if hasattr(a, "minimum") else np.minimum(a, b)
