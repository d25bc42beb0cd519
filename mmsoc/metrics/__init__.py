"""Metrics as thin wrappers over scikit-learn, jiwer, sacrebleu, rouge-score, nltk, bert-score and
sentence-transformers, with per-item statistics for bootstrap intervals; ``registry`` says which
task kinds report which metric, and how each is computed."""
