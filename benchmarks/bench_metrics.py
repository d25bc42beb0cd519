"""Time scoring of many OCR and generation pairs, and compare batched with per-item computation.

    python benchmarks/bench_metrics.py [--ocr 100000] [--generation 10000] [--sample 300]

Prints wall times for ``score_task`` and, measured side by side on ``--sample`` pairs, the speed
ratios of the batched / memoised paths over per-item calls of the same libraries.
"""

from __future__ import annotations

import argparse
import random
import time

from mmsoc.metrics import score_task
from mmsoc.text_encoder import load_sentence_encoder

WORDS = ("the a cat dog meme text people crowd red blue green running laughing funny sad city night day "
         "picture shows woman man child holding sign with words about politics sport music food").split()


def _sentences(rng: random.Random, n: int, low: int, high: int) -> list[str]:
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high))) for _ in range(n)]


def _timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ocr", type=int, default=100_000, help="OCR pairs to score")
    parser.add_argument("--generation", type=int, default=10_000, help="generation pairs to score")
    parser.add_argument("--sample", type=int, default=300, help="pairs for the side-by-side ratios")
    args = parser.parse_args()
    rng = random.Random(0)

    ocr_pred, ocr_ref = _sentences(rng, args.ocr, 3, 14), _sentences(rng, args.ocr, 3, 14)
    metrics, seconds = _timed(lambda: score_task("ocr", ocr_pred, ocr_ref))
    print(f"ocr: {args.ocr} pairs in {seconds:.1f} s (wer {metrics['wer']:.4f})")

    gen_pred, gen_ref = _sentences(rng, args.generation, 20, 60), _sentences(rng, args.generation, 20, 60)
    metrics, fast_seconds = _timed(lambda: score_task("image_description", gen_pred, gen_ref, fast=True))
    print(f"generation without embeddings: {args.generation} pairs in {fast_seconds:.1f} s "
          f"(rougeL {metrics['rougeL']:.4f})")
    load_sentence_encoder(None)
    metrics, seconds = _timed(lambda: score_task("image_description", gen_pred, gen_ref))
    print(f"generation with BERTScore and embeddings: {args.generation} pairs in {seconds:.1f} s "
          f"(bertscore_f1 {metrics['bertscore_f1']:.4f})")

    sample_pred, sample_ref = gen_pred[: args.sample], gen_ref[: args.sample]
    from rouge_score import rouge_scorer

    from mmsoc.metrics.text import rouge

    plain = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    _, per_item = _timed(lambda: [plain.score(r, p) for p, r in zip(sample_pred, sample_ref)])
    _, memo = _timed(lambda: rouge(sample_pred, sample_ref))
    print(f"rouge, memoised stemming vs rouge-score default on {args.sample} pairs: {per_item / memo:.2f}x faster")

    encoder = load_sentence_encoder(None)
    _, one_by_one = _timed(lambda: [encoder.encode([p, r]) for p, r in zip(sample_pred, sample_ref)])
    from mmsoc.metrics.embedding import embedding_similarity

    _, batched = _timed(lambda: embedding_similarity(sample_pred, sample_ref))
    print(f"embedding similarity, batched vs one pair per call on {args.sample} pairs: "
          f"{one_by_one / batched:.2f}x faster")


if __name__ == "__main__":
    main()
