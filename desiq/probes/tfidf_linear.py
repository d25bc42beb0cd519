"""``tfidf-linear``: word 1-2 gram TF-IDF of the option + a linear scorer (no torch; the fastest probe)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from desiq.probes import ProbeEntry, ProbeOptions
from desiq.probes.linear import LinearProbe, flatten

if TYPE_CHECKING:
    import numpy as np

    from desiq.records import MCQAItem


class TfidfLinearProbe(LinearProbe):
    """With ``q+a`` it adds the question-option word overlap (elementwise product of the two TF-IDF
    vectors) and their cosine similarity."""

    name = "tfidf-linear"

    def __init__(self, C: float = 4.0):
        self.C = C

    def _prepare(self, options: list[str]) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        self.vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True)
        self.vectorizer.fit(options)

    def _features(self, questions: list[str], options: list[str]) -> Any:
        from scipy import sparse

        a = self.vectorizer.transform(options)
        if not self.use_question:
            return a
        q = self.vectorizer.transform(questions)
        overlap = q.multiply(a).tocsr()
        return sparse.hstack([a, overlap, sparse.csr_matrix(overlap.sum(axis=1))]).tocsr()

    def option_features(self, items: Sequence[MCQAItem]) -> np.ndarray:
        from sklearn.decomposition import TruncatedSVD

        a = self.vectorizer.transform(flatten(items)[1])
        k = max(2, min(50, a.shape[1] - 1, a.shape[0] - 1))
        return TruncatedSVD(n_components=k, random_state=0).fit_transform(a)


def _build(options: ProbeOptions) -> TfidfLinearProbe:
    return TfidfLinearProbe()


PROBE = ProbeEntry("tfidf-linear", "no torch, fastest", _build)
