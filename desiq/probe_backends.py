"""Probe backends: models that score each option of an MCQA item from a restricted input setting.

Every backend implements ``fit(items, inputs, seed)`` and ``score(items) -> list[np.ndarray]`` (one
score per option) plus ``option_features(items)`` (a vector per option, for the t-SNE figure).
``fit`` always starts from scratch. ``inputs`` names what the probe may see: ``a`` (the options only, the NCAQ setting) or ``q+a``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from desiq.records import MCQAItem

TEXT_INPUTS = ("a", "q+a")


class ProbeBackend(Protocol):
    name: str

    def fit(self, items: Sequence[MCQAItem], inputs: str, seed: int) -> None: ...

    def score(self, items: Sequence[MCQAItem]) -> list[np.ndarray]: ...

    def option_features(self, items: Sequence[MCQAItem]) -> np.ndarray: ...


def flatten(items: Sequence[MCQAItem]) -> tuple[list[str], list[str], np.ndarray, np.ndarray]:
    """Per-option rows: (questions, options, is_correct, option count of each item)."""
    questions = [item.question for item in items for _ in item.options]
    options = [option for item in items for option in item.options]
    correct = np.array([i == item.answer_idx for item in items for i in range(len(item.options))])
    return questions, options, correct, np.array([len(item.options) for item in items])


def split_scores(flat: np.ndarray, counts: np.ndarray) -> list[np.ndarray]:
    return np.split(np.asarray(flat, dtype=np.float64), np.cumsum(counts)[:-1])


def check_inputs(name: str, inputs: str) -> bool:
    """Refuse media settings for text-only probes; True when the probe also sees the question."""
    if inputs not in TEXT_INPUTS:
        raise ValueError(f"probe {name!r} takes inputs {' or '.join(TEXT_INPUTS)}, not {inputs!r} "
                         "(media inputs need --probe fusion)")
    return inputs == "q+a"


class _LinearProbe:
    """Option features + a logistic-regression scorer trained on correct-vs-incorrect options."""

    name = "linear"

    def _features(self, questions: list[str], options: list[str]):  # pragma: no cover - abstract
        raise NotImplementedError

    def fit(self, items: Sequence[MCQAItem], inputs: str, seed: int) -> None:
        from sklearn.linear_model import LogisticRegression

        self.use_question = check_inputs(self.name, inputs)
        questions, options, correct, _ = flatten(items)
        self._prepare(options)
        self.model = LogisticRegression(C=self.C, max_iter=2000, random_state=seed)
        self.model.fit(self._features(questions, options), correct)

    def _prepare(self, options: list[str]) -> None:
        """Fit whatever the features need from the training options (nothing by default)."""

    def score(self, items: Sequence[MCQAItem]) -> list[np.ndarray]:
        questions, options, _, counts = flatten(items)
        return split_scores(self.model.decision_function(self._features(questions, options)), counts)


class EmbedLinearProbe(_LinearProbe):
    """Frozen sentence encoder (default: the pretrained all-MiniLM-L6-v2) + a linear scorer.

    Features: the option's embedding; with ``q+a`` also its elementwise product with the question's
    embedding (whose sum is their cosine similarity). Each distinct text is embedded once per run.
    """

    name = "embed-linear"

    def __init__(self, encoder: str | None = None, C: float = 1.0, progress: bool = False):
        self.encoder, self.C, self.progress = encoder, C, progress
        self._cache: dict[str, np.ndarray] = {}

    def embed(self, texts: list[str]) -> np.ndarray:
        from mmsoc.media.sentences import embed_texts

        missing = sorted(set(texts) - self._cache.keys())
        if missing:
            self._cache.update(zip(missing, embed_texts(missing, self.encoder, progress=self.progress)))
        return np.stack([self._cache[t] for t in texts])

    def _features(self, questions: list[str], options: list[str]) -> np.ndarray:
        a = self.embed(options)
        if not self.use_question:
            return a
        return np.hstack([a, self.embed(questions) * a])

    def option_features(self, items: Sequence[MCQAItem]) -> np.ndarray:
        return self.embed(flatten(items)[1])


class TfidfLinearProbe(_LinearProbe):
    """Word 1-2 gram TF-IDF of the option + a linear scorer (no torch; the fastest probe).

    With ``q+a`` it adds the question-option word overlap (elementwise product of the two TF-IDF
    vectors) and their cosine similarity.
    """

    name = "tfidf-linear"

    def __init__(self, C: float = 4.0):
        self.C = C

    def _prepare(self, options: list[str]) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        self.vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True)
        self.vectorizer.fit(options)

    def _features(self, questions: list[str], options: list[str]):
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


def _t5(**kwargs) -> ProbeBackend:
    from desiq.t5_probe import T5Probe

    return T5Probe(**kwargs)


def _fusion(**kwargs) -> ProbeBackend:
    from desiq.fusion import FusionProbe

    return FusionProbe(**kwargs)


PROBES: dict[str, Callable[..., ProbeBackend]] = {
    "embed-linear": EmbedLinearProbe,
    "tfidf-linear": TfidfLinearProbe,
    "t5": _t5,
    "fusion": _fusion,
}


def make_probe(name: str, **kwargs) -> ProbeBackend:
    """Build a probe backend by name; keyword arguments go to its constructor."""
    if name not in PROBES:
        raise ValueError(f"unknown probe {name!r}; choose from {', '.join(PROBES)}")
    return PROBES[name](**kwargs)
