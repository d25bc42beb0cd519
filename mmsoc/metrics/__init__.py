"""Metrics as thin wrappers over scikit-learn, jiwer, nltk, pltrdy rouge, sacrebleu, rouge-score, bert-score and
sentence-transformers (the paper's implementation under the plain key, others beside it under their own), with
per-item statistics for bootstrap intervals; ``registry`` says which task kinds report which metric, and how each
is computed."""
