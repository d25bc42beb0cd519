"""Score one task's predictions against references with the metrics its kind calls for."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from mmsoc.metrics import embedding, labels, text
from mmsoc.metrics.normalize import OCR_NORMALISATION, as_text, normalize_ocr, word_lengths
from mmsoc.metrics.stats import ItemStat, mean_stat
from mmsoc.tasks import get_task

METRIC_KEYS: tuple[str, ...] = (
    "wer", "cer", "bleu1", "bleu2", "bleu3", "bleu4", "rouge1", "rouge2", "rougeL", "meteor", "bertscore_f1",
    "embedding_similarity", "bigram_similarity", "length", "hamming_loss", "jaccard", "accuracy",
    "macro_precision", "macro_recall", "macro_f1", "auc",
)
"""Every metric key, in the order reports list them."""

LOWER_IS_BETTER = frozenset({"wer", "cer", "hamming_loss"})

METHODS: dict[str, str] = {
    "accuracy": "scikit-learn accuracy_score (tagging: exact match of the whole tag set); unparseable answers are wrong",
    "macro_precision": "scikit-learn precision_recall_fscore_support, average='macro', zero_division=0, over the "
                       "labels present in references or valid predictions",
    "macro_recall": "as macro_precision",
    "macro_f1": "classification/tagging: as macro_precision; OCR: mean over items of bag-of-words token F1 between "
                "normalised prediction and reference (1 when both are empty)",
    "auc": "scikit-learn roc_auc_score of the 0/1 indicator of the predicted label, one-vs-rest, macro over classes "
           "with both positive and negative items",
    "hamming_loss": "scikit-learn hamming_loss over the 62 YouTube topics (unknown tags ignored and counted)",
    "jaccard": "scikit-learn jaccard_score, average='samples', zero_division=1",
    "wer": "jiwer.process_words, corpus level: total edits / total reference words",
    "cer": "jiwer.process_characters, corpus level: total edits / total reference characters",
    "bleu1": "sacrebleu BLEU(max_ngram_order=1).corpus_score, 13a tokens, exp smoothing, 0-100 scale",
    "bleu2": "sacrebleu corpus BLEU with n-gram orders 1..2 (as bleu1)",
    "bleu3": "sacrebleu corpus BLEU with n-gram orders 1..3 (as bleu1)",
    "bleu4": "sacrebleu corpus BLEU with n-gram orders 1..4 (as bleu1)",
    "rouge1": "rouge-score RougeScorer(use_stemmer=True), F-measure per item averaged; its tokenizer keeps a-z0-9 only",
    "rouge2": "as rouge1",
    "rougeL": "as rouge1 (sentence-level LCS)",
    "meteor": "nltk meteor_score per item on whitespace tokens, averaged",
    "bertscore_f1": "bert-score F1 per item, averaged; scores depend on the model and layer named in the report",
    "embedding_similarity": "cosine similarity of sentence-transformers embeddings per item, averaged",
    "bigram_similarity": "Jaccard similarity of lower-cased word-bigram sets per item (scikit-learn CountVectorizer), "
                         "averaged; 0 when neither side has a bigram",
    "length": "response length in whitespace-separated words, averaged",
    "n": "number of items scored",
}
"""How each metric is computed, as printed in reports."""


@dataclass
class TaskScores:
    """Metric values of one task, per-item statistics for intervals, and notes on how they were computed."""

    task: str
    metrics: dict[str, float | int]
    stats: dict[str, ItemStat]
    info: dict[str, object] = field(default_factory=dict)
    lengths: np.ndarray | None = None
    reference_lengths: np.ndarray | None = None


def score_task(task_id: str, predictions: list, references: list, *, text_encoder: str | None = None,
               fast: bool = False) -> dict[str, float | int]:
    """The flat metrics of one task: the keys of :data:`METRIC_KEYS` that apply, and ``n``.

    Unparseable predictions arrive as None and count as wrong (classification), as no tags
    (tagging) or as the empty string (text tasks). ``fast`` skips BERTScore and embedding
    similarity. Undefined values (e.g. AUC on one class) are NaN.
    """
    return score_task_detailed(task_id, predictions, references, text_encoder=text_encoder, fast=fast).metrics


def score_task_detailed(task_id: str, predictions: Sequence, references: Sequence, *, text_encoder: str | None = None,
                        fast: bool = False) -> TaskScores:
    """As :func:`score_task`, with per-item statistics (for bootstrap intervals) and method notes."""
    spec = get_task(task_id)
    if len(predictions) != len(references):
        raise ValueError(f"{task_id}: {len(predictions)} predictions but {len(references)} references")
    if not references:
        raise ValueError(f"{task_id}: nothing to score")
    if spec.kind in ("classification", "multilabel"):
        scorer = labels.classification if spec.kind == "classification" else labels.multilabel
        result = scorer(predictions, references, spec.labels)
        return TaskScores(task_id, {**result.metrics, "n": len(references)}, result.stats, result.info)
    if spec.kind == "ocr":
        preds, refs = [normalize_ocr(p) for p in predictions], [normalize_ocr(r) for r in references]
        stats, info = _per_distinct_pair(_ocr, preds, refs)
    else:
        preds, refs = [as_text(p) for p in predictions], [as_text(r) for r in references]
        stats, info = _per_distinct_pair(_generation, preds, refs, text_encoder, fast)
    info["empty_predictions"] = sum(not p.strip() for p in preds)
    lengths = np.asarray(word_lengths(preds))
    if spec.kind == "generation":
        stats["length"] = mean_stat(lengths)
    metrics: dict[str, float | int] = {key: stats[key].value() for key in METRIC_KEYS if key in stats}
    return TaskScores(task_id, {**metrics, "n": len(references)}, stats, info, lengths,
                      np.asarray(word_lengths(refs)))


def _per_distinct_pair(scorer, preds: list[str], refs: list[str], *args) -> tuple[dict[str, ItemStat], dict]:
    """Run ``scorer`` (returning statistics and notes) once per distinct (prediction, reference) pair
    and give every item its pair's statistics: each per-item statistic depends on its own pair only."""
    pairs: dict[tuple[str, str], int] = {}
    inverse = np.asarray([pairs.setdefault(pair, len(pairs)) for pair in zip(preds, refs)], dtype=np.int64)
    distinct_preds, distinct_refs = [p for p, _ in pairs], [r for _, r in pairs]
    stats, info = scorer(distinct_preds, distinct_refs, *args)
    return {key: stat.subset(inverse) for key, stat in stats.items()}, info


def _ocr(preds: list[str], refs: list[str]) -> tuple[dict[str, ItemStat], dict]:
    stats = {**text.edit_rates(preds, refs), **text.bleu(preds, refs), "macro_f1": text.token_f1(preds, refs)}
    return stats, {"normalisation": OCR_NORMALISATION}


def _generation(preds: list[str], refs: list[str], text_encoder: str | None, fast: bool) -> tuple[dict, dict]:
    stats: dict[str, ItemStat] = {**text.bleu(preds, refs), **text.rouge(preds, refs)}
    stats["meteor"], with_wordnet = text.meteor(preds, refs)
    stats["bigram_similarity"] = text.bigram_similarity(preds, refs)
    info: dict[str, object] = {"meteor": "with WordNet synonyms" if with_wordnet else
                               "without WordNet synonyms (nltk's WordNet corpus is not installed): exact and "
                               "stem matches only"}
    if not fast:
        stats["bertscore_f1"], info["bertscore"] = embedding.bertscore(preds, refs, text_encoder)
        stats["embedding_similarity"] = embedding.embedding_similarity(preds, refs, text_encoder)
        info["embedding_model"] = embedding.encoder_name(text_encoder)
    return stats, info
