"""MM-Soc OCR metrics (WER, CER, NLTK BLEU-1..4 as the paper, sacrebleu BLEU-1..4, token F1) as an
``evaluate`` module.

Equal to ``mmsoc score --task ocr``: both sides are normalised first; with ``ids`` of the form
``hateful_memes/...`` and ``memotion/...`` each dataset is scored and the metrics are their mean,
as the paper reports OCR. One import per line: ``evaluate`` reads each import line as a dependency.
"""

import datasets
import evaluate

from mmsoc.metrics.evaluate_modules import score

_DESCRIPTION = __doc__
_KWARGS_DESCRIPTION = """
Args:
    predictions: the text read from each image (None for an unparseable response).
    references: the text in each image.
    ids: optional item ids ``dataset/item``; when given, the metrics are the mean over the datasets.
Returns:
    wer, cer, bleu1..bleu4, bleu1_sacrebleu..bleu4_sacrebleu, token_f1, n.
"""
_CITATION = "Jin et al. (2024). MM-Soc: Benchmarking Multimodal Large Language Models in Social Media Platforms."


class MmsocOcr(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
            ),
        )

    def _compute(self, predictions, references, ids=None):
        return score("ocr", ("ocr",), predictions, references, ids=ids)
