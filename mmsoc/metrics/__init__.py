"""Metrics as thin wrappers over scikit-learn, jiwer, sacrebleu, rouge-score, nltk, bert-score and
sentence-transformers, with per-item statistics for bootstrap intervals."""

from mmsoc.metrics.normalize import normalize_ocr
from mmsoc.metrics.scoring import LOWER_IS_BETTER, METHODS, METRIC_KEYS, TaskScores, score_task, score_task_detailed

__all__ = ["LOWER_IS_BETTER", "METHODS", "METRIC_KEYS", "TaskScores", "normalize_ocr", "score_task",
           "score_task_detailed"]
