"""Parity of every metric with a direct call of its reference library, on hand-made cases."""

from __future__ import annotations

import jiwer
import numpy as np
import pytest
from nltk.translate.bleu_score import corpus_bleu
from nltk.translate.meteor_score import meteor_score
from nltk.util import bigrams
from rouge import Rouge
from rouge_score import rouge_scorer
from sacrebleu.metrics import BLEU
from sklearn.metrics import (
    accuracy_score,
    f1_score,
    hamming_loss,
    jaccard_score,
    precision_score,
    recall_score,
    roc_auc_score,
)
from sklearn.preprocessing import MultiLabelBinarizer

from mmsoc.metrics.normalize import normalize_ocr
from mmsoc.metrics.text import wordnet_or_none
from mmsoc.tasks import score_task, score_task_detailed
from mmsoc.tasks.mmsoc.youtube2000 import YOUTUBE_TOPICS

TOL = 1e-9

GEN_PRED = ["A red cat sits on the mat.", "", "Crème brûlée und Käse — très bien", "dogs run in the park running"]
GEN_REF = ["The cat sat on a red mat.", "two dogs play", "crème brûlée and cheese", "a dog runs in a park"]
OCR_PRED = ['"When you SEE it"', None, "  naïve   café ", "“quoted”", "extra words here"]
OCR_REF = ["when you see it", "nothing predicted", "Naïve café", "quoted", ""]


class _NoWordNet:
    @staticmethod
    def synsets(word):
        return []


def test_normalize_ocr_cases():
    assert normalize_ocr('  "Hello   World"  ') == "hello world"
    assert normalize_ocr("'\u201cnested\u201d'") == "nested"
    assert normalize_ocr("don't stop") == "don't stop"
    assert normalize_ocr('"unbalanced') == '"unbalanced'
    assert normalize_ocr(None) == ""
    assert normalize_ocr("Cafe\u0301") == "caf\u00e9"  # NFC


@pytest.mark.parametrize(
    "pred,ref",
    [
        (
            ["hateful", None, "not_hateful", "not_hateful", "hateful"],
            ["hateful", "not_hateful", "not_hateful", "hateful", "hateful"],
        ),
        (["hateful"], ["hateful"]),
    ],
)
def test_binary_classification_matches_sklearn(pred, ref):
    got = score_task("hate", pred, ref)
    y_pred = ["<invalid>" if p is None else p for p in pred]
    labels = [lab for lab in ("hateful", "not_hateful") if lab in set(ref) | set(y_pred)]
    assert got["n"] == len(ref)
    assert abs(got["accuracy"] - accuracy_score(ref, y_pred)) < TOL
    for key, fn in (("macro_precision", precision_score), ("macro_recall", recall_score), ("macro_f1", f1_score)):
        assert abs(got[key] - fn(ref, y_pred, labels=labels, average="macro", zero_division=0)) < TOL
    truth = np.array([r == "hateful" for r in ref])
    if truth.all() or not truth.any():
        assert np.isnan(got["auc"])
    else:  # binary, the usual positive-class AUC when the invalid item is a negative for both columns
        per_class = [roc_auc_score(np.array(ref) == c, np.array(y_pred) == c) for c in ("hateful", "not_hateful")]
        assert abs(got["auc"] - np.mean(per_class)) < TOL


def test_hand_worked_macro_f1():
    # hateful: tp=1, predicted=1, true=1 -> F1 1; not_hateful: tp=1, predicted=1, true=2 -> F1 2/3
    got = score_task("hate", ["hateful", None, "not_hateful"], ["hateful", "not_hateful", "not_hateful"])
    assert abs(got["macro_f1"] - (1 + 2 / 3) / 2) < TOL
    assert abs(got["accuracy"] - 2 / 3) < TOL


def test_multiclass_auc_matches_sklearn_ovr():
    ref = ["positive", "neutral", "negative", "negative", "positive", "neutral"]
    pred = ["positive", "negative", "negative", "neutral", "neutral", "neutral"]
    got = score_task("sentiment", pred, ref)
    labels = sorted(["positive", "neutral", "negative"])
    onehot = np.array([[p == c for c in labels] for p in pred], dtype=float)
    assert abs(got["auc"] - roc_auc_score(ref, onehot, labels=labels, multi_class="ovr", average="macro")) < TOL


def test_tagging_matches_sklearn():
    pred = [["music", "pop_music"], "sport, not_a_topic", None, '["film"]']
    ref = [["music"], ["sport", "tennis"], ["film"], ["film", "jazz"]]
    details = score_task_detailed("tagging", pred, ref)
    got = details.metrics
    binarizer = MultiLabelBinarizer(classes=list(YOUTUBE_TOPICS))
    y_true = binarizer.fit_transform(ref)
    y_pred = binarizer.transform([["music", "pop_music"], ["sport"], [], ["film"]])
    assert abs(got["hamming_loss"] - hamming_loss(y_true, y_pred)) < TOL
    assert abs(got["jaccard"] - jaccard_score(y_true, y_pred, average="samples")) < TOL
    present = [j for j in range(62) if y_true[:, j].any() or y_pred[:, j].any()]
    assert abs(got["macro_f1"] - f1_score(y_true, y_pred, labels=present, average="macro", zero_division=0)) < TOL
    assert details.info["unknown_predicted_tags"] == 1
    assert abs(got["hamming_loss"] - (1 + 1 + 1 + 1) / (4 * 62)) < TOL  # hand count of symmetric differences


def _nltk_bleu(hyp: list[str], ref: list[str], n: int) -> float:
    """The paper's BLEU-n: NLTK corpus_bleu on whitespace tokens, uniform weights over orders 1..n."""
    return corpus_bleu([[r.split()] for r in ref], [h.split() for h in hyp], weights=(1 / n,) * n)


@pytest.mark.filterwarnings("ignore::UserWarning:nltk.translate.bleu_score")  # no n-gram match of an order
def test_ocr_matches_jiwer_nltk_and_sacrebleu():
    got = score_task("ocr", OCR_PRED, OCR_REF)
    hyp = [normalize_ocr(p) for p in OCR_PRED]
    ref = [normalize_ocr(r) for r in OCR_REF]
    assert abs(got["wer"] - jiwer.wer(ref, hyp)) < TOL
    assert abs(got["cer"] - jiwer.cer(ref, hyp)) < TOL
    for n in (1, 2, 3, 4):
        assert abs(got[f"bleu{n}"] - _nltk_bleu(hyp, ref, n)) < 1e-12
        assert abs(got[f"bleu{n}_sacrebleu"] - BLEU(max_ngram_order=n).corpus_score(hyp, [ref]).score) < TOL
    # token F1 by hand: 1, 0, 1, 1, 0 (empty reference, three predicted words)
    assert abs(got["token_f1"] - 3 / 5) < TOL
    assert set(got) == {
        "wer",
        "cer",
        "token_f1",
        "n",
        *(f"bleu{n}" for n in range(1, 5)),
        *(f"bleu{n}_sacrebleu" for n in range(1, 5)),
    }


def test_ocr_single_item():
    got = score_task("ocr", ["abc"], ["abd"])
    assert abs(got["cer"] - jiwer.cer(["abd"], ["abc"])) < TOL
    assert got["wer"] == jiwer.wer(["abd"], ["abc"]) == 1.0


@pytest.fixture(scope="module")
def generation():
    return score_task_detailed("image_description", GEN_PRED, GEN_REF)


@pytest.mark.filterwarnings("ignore::UserWarning:nltk.translate.bleu_score")  # no n-gram match of an order
def test_generation_text_metrics_match_libraries(generation):
    got = generation.metrics
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    scores = [scorer.score(r, p) for p, r in zip(GEN_PRED, GEN_REF)]
    for key in ("rouge1", "rouge2", "rougeL"):
        assert abs(got[f"{key}_rouge_score"] - np.mean([s[key].fmeasure for s in scores])) < TOL
    # the paper's ROUGE: pltrdy rouge, hypothesis first; it raises on the empty prediction, which scores 0
    pltrdy = [Rouge().get_scores(p, r)[0] if p else None for p, r in zip(GEN_PRED, GEN_REF)]
    for key, name in (("rouge1", "rouge-1"), ("rouge2", "rouge-2"), ("rougeL", "rouge-l")):
        assert abs(got[key] - np.mean([s[name]["f"] if s else 0.0 for s in pltrdy])) < TOL
    wordnet = wordnet_or_none() or _NoWordNet()
    expected = np.mean([meteor_score([r.split()], p.split(), wordnet=wordnet) for p, r in zip(GEN_PRED, GEN_REF)])
    assert abs(got["meteor"] - expected) < TOL
    for n in (1, 2, 3, 4):
        assert abs(got[f"bleu{n}"] - _nltk_bleu(GEN_PRED, GEN_REF, n)) < 1e-12
        assert abs(got[f"bleu{n}_sacrebleu"] - BLEU(max_ngram_order=n).corpus_score(GEN_PRED, [GEN_REF]).score) < TOL
    jac = []
    for p, r in zip(GEN_PRED, GEN_REF):
        a, b = set(bigrams(p.lower().split())), set(bigrams(r.lower().split()))
        jac.append(len(a & b) / len(a | b) if a | b else 0.0)
    assert abs(got["word_bigram_jaccard"] - np.mean(jac)) < TOL
    assert abs(got["length"] - np.mean([len(p.split()) for p in GEN_PRED])) < TOL
    if wordnet_or_none() is None:
        assert "without WordNet" in generation.info["meteor"]


def test_generation_embedding_metrics_match_libraries(generation):
    import bert_score
    from sentence_transformers import SentenceTransformer

    from mmsoc.media.sentences import default_text_encoder_path

    path = default_text_encoder_path()
    keep = [i for i, p in enumerate(GEN_PRED) if p.strip()]
    _, _, f1 = bert_score.score([GEN_PRED[i] for i in keep], [GEN_REF[i] for i in keep], model_type=path, num_layers=6)
    expected = np.zeros(len(GEN_PRED))
    expected[keep] = f1.double().numpy()
    assert abs(generation.metrics["bertscore_f1"] - expected.mean()) < 1e-6  # float32 model, batch-size independent
    assert "layer 6" in generation.info["bertscore"] and "MiniLM" in generation.info["bertscore"]
    model = SentenceTransformer(path, device="cpu")
    a = model.encode(GEN_PRED, normalize_embeddings=True).astype(np.float64)
    b = model.encode(GEN_REF, normalize_embeddings=True).astype(np.float64)
    assert abs(generation.metrics["embedding_similarity"] - (a * b).sum(1).mean()) < 1e-6


def test_fast_mode_skips_embeddings_and_none_is_empty():
    got = score_task("social_context", [None, "the same words"], ["some text", "the same words"], fast=True)
    assert "bertscore_f1" not in got and "embedding_similarity" not in got
    assert got["length"] == 1.5
    assert abs(got["rouge1_rouge_score"] - 0.5) < TOL  # an empty prediction scores 0, an exact copy 1
    assert abs(got["rouge1"] - (0 + 1 - 1e-8 / 2) / 2) < 1e-12  # pltrdy: F = 2PR / (P + R + 1e-8)


def test_bad_inputs_are_rejected():
    with pytest.raises(ValueError, match="not one of the labels"):
        score_task("hate", ["hateful"], ["maybe"])
    with pytest.raises(ValueError, match="2 predictions but 1"):
        score_task("hate", ["hateful", "hateful"], ["hateful"])
    with pytest.raises(KeyError, match="unknown task"):
        score_task("nope", [], [])
