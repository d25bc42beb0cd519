"""MM-Soc classification metrics (accuracy, macro precision / recall / F1, AUC) as an ``evaluate`` module.

Equal to ``mmsoc score --task TASK``; an unparseable prediction (None, or no label) counts as wrong.
One import per line: ``evaluate`` reads each import line as a dependency.
"""

import datasets
import evaluate

from mmsoc.metrics.evaluate_modules import score

_DESCRIPTION = __doc__
_KWARGS_DESCRIPTION = """
Args:
    predictions: the parsed label of each response (a label string of the task, or None).
    references: the gold label of each item.
    task: an MM-Soc classification task id (misinfo_politifact, misinfo_gossipcop, hate, sentiment,
        humor, sarcasm, offensive).
Returns:
    accuracy, macro_precision, macro_recall, macro_f1, auc (None when undefined), n.
"""
_CITATION = "Jin et al. (2024). MM-Soc: Benchmarking Multimodal Large Language Models in Social Media Platforms."


class MmsocClassification(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
            ),
        )

    def _compute(self, predictions, references, task="hate"):
        return score(task, ("classification",), predictions, references)
