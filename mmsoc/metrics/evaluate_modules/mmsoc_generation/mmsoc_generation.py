"""MM-Soc generation metrics (image and social context description) as an ``evaluate`` module.

Equal to ``mmsoc score --task TASK``: pltrdy ROUGE-1/2/L and NLTK BLEU as the paper, rouge-score and
sacrebleu beside them, METEOR, Kondrak bigram similarity, word-bigram Jaccard, length, and (unless
``fast``) BERTScore and sentence-embedding similarity with ``text_encoder``.
One import per line: ``evaluate`` reads each import line as a dependency.
"""

import datasets
import evaluate

from mmsoc.metrics.evaluate_modules import score

_DESCRIPTION = __doc__
_KWARGS_DESCRIPTION = """
Args:
    predictions: each generated text (None for an unparseable response).
    references: each reference text.
    task: image_description (default) or social_context.
    text_encoder: sentence-transformers model id or folder for BERTScore and embedding similarity
        (default: the bundled all-MiniLM-L6-v2).
    fast: skip BERTScore and embedding similarity.
Returns:
    bleu1..bleu4, bleu1_sacrebleu..bleu4_sacrebleu, rouge1, rouge2, rougeL, rouge1_rouge_score,
    rouge2_rouge_score, rougeL_rouge_score, meteor, bertscore_f1, embedding_similarity,
    bigram_similarity, word_bigram_jaccard, length, n.
"""
_CITATION = "Jin et al. (2024). MM-Soc: Benchmarking Multimodal Large Language Models in Social Media Platforms."


class MmsocGeneration(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
            ),
        )

    def _compute(self, predictions, references, task="image_description", text_encoder=None, fast=False):
        return score(task, ("generation",), predictions, references, text_encoder=text_encoder, fast=fast)
