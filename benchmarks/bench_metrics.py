"""Time metric scoring per item (one library call per pair) against mmsoc's batched path, side by side.

    python benchmarks/bench_metrics.py [--ocr 100000] [--generation 10000] [--naive-max N]

The per-item path calls jiwer, sacrebleu, pltrdy rouge, rouge-score, nltk, bert-score and
sentence-transformers once per pair (a reused BERTScorer and encoder: no model reloads) and runs
Lucene's n-gram distance loop per pair for the Kondrak bigram similarity; the batched path is
``mmsoc.metrics.score_task``. Both give the same metric values (the largest difference is printed).
With ``--naive-max`` the per-item path runs on the first N pairs only and its time is scaled to all
pairs (marked "scaled"). Torch uses its default thread count; print ``uptime`` beside the figures.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections import Counter

import numpy as np
from sacrebleu.metrics import BLEU

_BLEU = BLEU()

WORDS = [
    "the",
    "a",
    "cat",
    "dog",
    "meme",
    "text",
    "people",
    "crowd",
    "red",
    "blue",
    "green",
    "running",
    "laughing",
    "funny",
    "sad",
    "city",
    "night",
    "day",
    "picture",
    "shows",
    "woman",
    "man",
    "child",
    "holding",
    "sign",
    "with",
    "words",
    "about",
    "politics",
    "sport",
    "music",
    "food",
]


def _sentences(rng: random.Random, n: int, low: int, high: int) -> list[str]:
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high))) for _ in range(n)]


def _timed(fn):
    """(value, wall seconds, CPU seconds of this process over all its threads)."""
    start, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.perf_counter() - start, time.process_time() - cpu


def _bleu(stats: np.ndarray) -> dict[str, float]:
    sums = stats.sum(0).astype(int).tolist()
    return {
        f"bleu{n}_sacrebleu": BLEU.compute_bleu(
            correct=sums[2 : 2 + n],
            total=sums[6 : 6 + n],
            sys_len=sums[0],
            ref_len=sums[1],
            smooth_method="exp",
            max_ngram_order=n,
        ).score
        for n in (1, 2, 3, 4)
    }


def _bleu_stats(pred: str, ref: str) -> list[int]:
    return _BLEU._extract_corpus_statistics([pred], [[ref]])[0]


def _nltk_bleu(preds: list[str], refs: list[str]) -> dict[str, float]:
    from nltk.translate.bleu_score import corpus_bleu

    return {
        f"bleu{n}": corpus_bleu([[r.split()] for r in refs], [p.split() for p in preds], weights=(1 / n,) * n)
        for n in (1, 2, 3, 4)
    }


def _lucene_ngram_similarity(source: str, target: str, n: int = 2) -> float:
    """1 - Lucene NGramDistance(n), its loop as written (one pair at a time)."""
    sl, tl = len(source), len(target)
    if source == target:
        return 1.0
    if sl == 0 or tl == 0:
        return 0.0
    if sl < n or tl < n:
        return sum(source[i] == target[i] for i in range(min(sl, tl))) / max(sl, tl)
    sa = ["\0"] * (n - 1) + list(source)
    p, d = [float(i) for i in range(sl + 1)], [0.0] * (sl + 1)
    for j in range(1, tl + 1):
        t_j = ["\0"] * (n - j) + list(target[:j]) if j < n else list(target[j - n : j])
        d[0] = float(j)
        for i in range(1, sl + 1):
            cost, tn = 0, n
            for ni in range(n):
                if sa[i - 1 + ni] != t_j[ni]:
                    cost += 1
                elif sa[i - 1 + ni] == "\0":
                    tn -= 1
            d[i] = min(d[i - 1] + 1, p[i] + 1, p[i - 1] + cost / tn)
        p, d = d, p
    return 1.0 - p[sl] / max(sl, tl)


def naive_ocr(preds: list[str], refs: list[str]) -> dict[str, float]:
    """OCR metrics with one jiwer / sacrebleu call per (normalised) pair."""
    import jiwer

    from mmsoc.metrics.normalize import normalize_ocr

    preds, refs = [normalize_ocr(p) for p in preds], [normalize_ocr(r) for r in refs]
    rows = []
    for p, r in zip(preds, refs):
        words, chars = jiwer.process_words(r, p), jiwer.process_characters(r, p)
        rows.append(
            (
                words.substitutions + words.deletions + words.insertions,
                len(words.references[0]),
                chars.substitutions + chars.deletions + chars.insertions,
                len(chars.references[0]),
            )
        )
    edits = np.asarray(rows, dtype=np.float64).sum(0)
    f1 = []
    for p, r in zip(preds, refs):
        a, b = Counter(p.split()), Counter(r.split())
        total = sum(a.values()) + sum(b.values())
        f1.append(1.0 if total == 0 else 2 * sum((a & b).values()) / total)
    stats = np.asarray([_bleu_stats(p, r) for p, r in zip(preds, refs)], dtype=np.float64)
    return {
        "wer": edits[0] / edits[1],
        "cer": edits[2] / edits[3],
        **_nltk_bleu(preds, refs),
        **_bleu(stats),
        "token_f1": float(np.mean(f1)),
    }


def naive_generation(preds: list[str], refs: list[str], models: bool = True) -> dict[str, float]:
    """Generation metrics with one library call per pair; ``models`` adds BERTScore and embeddings."""
    from nltk.stem.porter import PorterStemmer
    from nltk.translate.meteor_score import meteor_score
    from nltk.util import bigrams
    from rouge import Rouge
    from rouge_score import rouge_scorer

    from mmsoc.media.sentences import load_sentence_encoder
    from mmsoc.metrics.embedding import _scorer, bertscore_layers
    from mmsoc.metrics.text import _NoSynonyms, wordnet_or_none

    out = {
        **_nltk_bleu(preds, refs),
        **_bleu(np.asarray([_bleu_stats(p, r) for p, r in zip(preds, refs)], dtype=np.float64)),
    }
    pltrdy = [Rouge().get_scores(p, r)[0] for p, r in zip(preds, refs)]
    out.update(
        {
            key: float(np.mean([s[name]["f"] for s in pltrdy]))
            for key, name in (("rouge1", "rouge-1"), ("rouge2", "rouge-2"), ("rougeL", "rouge-l"))
        }
    )
    rouge = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    scores = [rouge.score(r, p) for p, r in zip(preds, refs)]
    out.update(
        {
            f"{key}_rouge_score": float(np.mean([s[key].fmeasure for s in scores]))
            for key in ("rouge1", "rouge2", "rougeL")
        }
    )
    wordnet, stemmer = wordnet_or_none() or _NoSynonyms(), PorterStemmer()
    out["meteor"] = float(
        np.mean([meteor_score([r.split()], p.split(), stemmer=stemmer, wordnet=wordnet) for p, r in zip(preds, refs)])
    )
    jaccard = []
    for p, r in zip(preds, refs):
        a, b = set(bigrams(p.lower().split())), set(bigrams(r.lower().split()))
        jaccard.append(len(a & b) / len(a | b) if a | b else 0.0)
    out["word_bigram_jaccard"] = float(np.mean(jaccard))
    out["bigram_similarity"] = float(np.mean([_lucene_ngram_similarity(p, r) for p, r in zip(preds, refs)]))
    if not models:
        return out
    scorer = _scorer(None, bertscore_layers(None))
    out["bertscore_f1"] = float(
        np.mean([scorer.score([p], [r])[2].item() if p.strip() and r.strip() else 0.0 for p, r in zip(preds, refs)])
    )
    encoder = load_sentence_encoder(None)
    sims = [
        float(np.dot(*encoder.encode([p, r], normalize_embeddings=True).astype(np.float64)))
        for p, r in zip(preds, refs)
    ]
    out["embedding_similarity"] = float(np.mean(sims))
    return out


def compare(name: str, naive, batched, preds: list[str], refs: list[str], naive_max: int | None) -> None:
    """Time both paths on the same pairs and print times, ratio and the largest metric difference."""
    n = len(preds)
    m = n if naive_max is None else min(n, naive_max)
    batched_values, batched_s, batched_cpu = _timed(lambda: batched(preds, refs))
    naive_values, naive_s, naive_cpu = _timed(lambda: naive(preds[:m], refs[:m]))
    scaled, scaled_cpu = naive_s * n / m, naive_cpu * n / m
    if m < n:
        batched_values = batched(preds[:m], refs[:m])
    diff = max(abs(naive_values[key] - batched_values[key]) for key in naive_values)
    print(
        f"{name:<28} {n:>7} pairs   per-item {scaled:8.1f} s{' (scaled from ' + str(m) + ')' if m < n else ''}"
        f"   batched {batched_s:6.1f} s   ratio {scaled / batched_s:6.1f}x   (CPU s: {scaled_cpu:.1f} vs "
        f"{batched_cpu:.1f}, {scaled_cpu / batched_cpu:.1f}x)   largest |difference| {diff:.1e}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ocr", type=int, default=100_000, help="OCR pairs to score (0 skips)")
    parser.add_argument("--generation", type=int, default=10_000, help="generation pairs to score (0 skips)")
    parser.add_argument(
        "--naive-max",
        type=int,
        default=None,
        help="run the per-item path on at most this many pairs and scale its time",
    )
    args = parser.parse_args()
    import torch

    from mmsoc.media.sentences import load_sentence_encoder
    from mmsoc.metrics.embedding import _scorer, bertscore_layers
    from mmsoc.tasks import score_task

    print(
        f"cores {os.cpu_count()}, torch threads {torch.get_num_threads()}, load average "
        + " ".join(f"{x:.2f}" for x in os.getloadavg())
    )
    rng = random.Random(0)
    if args.ocr:
        preds, refs = _sentences(rng, args.ocr, 3, 14), _sentences(rng, args.ocr, 3, 14)
        compare("ocr", naive_ocr, lambda p, r: score_task("ocr", p, r), preds, refs, args.naive_max)
    if args.generation:
        preds, refs = _sentences(rng, args.generation, 20, 60), _sentences(rng, args.generation, 20, 60)
        compare(
            "generation, text metrics",
            lambda p, r: naive_generation(p, r, models=False),
            lambda p, r: score_task("image_description", p, r, fast=True),
            preds,
            refs,
            args.naive_max,
        )
        load_sentence_encoder(None), _scorer(None, bertscore_layers(None))  # load the models before timing
        compare(
            "generation, all metrics",
            naive_generation,
            lambda p, r: score_task("image_description", p, r),
            preds,
            refs,
            args.naive_max,
        )


if __name__ == "__main__":
    main()
