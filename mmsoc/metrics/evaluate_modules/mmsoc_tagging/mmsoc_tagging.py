"""MM-Soc tagging metrics (Hamming loss, Jaccard, subset accuracy, macro P/R/F1 over the YouTube topics)
as an ``evaluate`` module.

Equal to ``mmsoc score --task tagging``; tags outside the topic set are ignored.
One import per line: ``evaluate`` reads each import line as a dependency.
"""

import datasets
import evaluate

from mmsoc.metrics.evaluate_modules import score

_DESCRIPTION = __doc__
_KWARGS_DESCRIPTION = """
Args:
    predictions: the tags of each response, as a list of topics or one comma-separated string.
    references: the gold topics of each item, in the same form.
Returns:
    hamming_loss, jaccard, accuracy, macro_precision, macro_recall, macro_f1, n.
"""
_CITATION = "Jin et al. (2024). MM-Soc: Benchmarking Multimodal Large Language Models in Social Media Platforms."


class MmsocTagging(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=[
                datasets.Features(
                    {
                        "predictions": datasets.Sequence(datasets.Value("string")),
                        "references": datasets.Sequence(datasets.Value("string")),
                    }
                ),
                datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
            ],
        )

    def _compute(self, predictions, references, task="tagging"):
        return score(task, ("multilabel",), predictions, references)
