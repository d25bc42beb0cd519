"""The paper's text-only baselines, trained on the train split of the same data.

- ``TextBaselineModel(data)``: frozen sentence embeddings (all-MiniLM-L6-v2 by default) plus a
  scikit-learn logistic regression (one-vs-rest for tagging).
- ``TextBaselineModel(data, classifier=ID_OR_DIR)``: full fine-tuning of any transformers
  sequence classifier (BERT, RoBERTa, DeBERTa, MiniLM, ...), seeded by the run seed.

Each task kind names its baseline strategy: one label, several labels, the train reference of the
nearest train text (free-text generation, by embedding cosine), or none (OCR has no text-only input:
the meme text is the answer, so the response is empty).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

import numpy as np

from mmsoc.core.records import Example
from mmsoc.models.base import CannotScore, GenerationSettings, OptionScores, Request
from mmsoc.models.registry import ModelEntry, ModelOptions
from mmsoc.tasks.spec import TaskSpec

Predictor = Callable[[list[str]], list[str]]


class TextBaselineModel:
    """Answers from the post text alone; one model per (task, seed), trained on first use."""

    modalities = frozenset({"text"})

    def __init__(
        self,
        data: str,
        classifier: str | None = None,
        encoder: str | None = None,
        device: str = "auto",
        epochs: int = 3,
        learning_rate: float = 5e-5,
        batch_size: int = 16,
    ):
        self.name = "text-baseline" + (f":{classifier}" if classifier else "")
        self.data, self.classifier, self.encoder, self.device = data, classifier, encoder, device
        self.epochs, self.learning_rate, self.batch_size = epochs, learning_rate, batch_size
        self._predictors: dict[tuple[str, int], Predictor] = {}
        self._vectors: dict[str, np.ndarray] = {}

    def generate(self, requests: Sequence[Request], settings: GenerationSettings) -> list[str]:
        groups: dict[tuple[str, int], list[int]] = defaultdict(list)
        for i, request in enumerate(requests):
            groups[(request.task, request.seed or 0)].append(i)
        out = [""] * len(requests)
        for key, rows in groups.items():
            if key not in self._predictors:
                self._predictors[key] = self._fit(*key)
            for i, answer in zip(rows, self._predictors[key]([requests[i].text for i in rows])):
                out[i] = answer
        return out

    def score_options(self, requests: Sequence[Request], options: Sequence[Sequence[str]]) -> list[OptionScores]:
        raise CannotScore("the text baseline answers a task's labels; it cannot score free options")

    def _fit(self, task: str, seed: int) -> Predictor:
        from mmsoc.tasks import get_task, kind_of
        from mmsoc.tasks.data import load_examples

        spec = get_task(task)
        strategy = kind_of(spec).text_baseline
        if strategy == "none":
            return lambda texts: [""] * len(texts)
        train = load_examples(task, self.data, split="train").examples
        if not train:
            raise ValueError(f"{task}: the text baseline needs a non-empty train split in {self.data!r}")
        if strategy == "nearest_reference":
            return self._nearest_reference(train)
        multilabel = strategy == "multi_label"
        targets = _targets(spec, train, multilabel)
        if self.classifier:
            from mmsoc.models.text_classifier import fit_sequence_classifier

            scores = fit_sequence_classifier(
                self.classifier,
                [e.text for e in train],
                targets,
                len(spec.labels),
                seed,
                multilabel=multilabel,
                epochs=self.epochs,
                learning_rate=self.learning_rate,
                batch_size=self.batch_size,
                device=self.device,
            )
        else:
            scores = self._frozen_classifier([e.text for e in train], targets, len(spec.labels), seed)
        return lambda texts: [_answer(spec, row, multilabel) for row in scores(texts)]

    def _frozen_classifier(
        self, texts: list[str], targets: np.ndarray, n_labels: int, seed: int
    ) -> Callable[[list[str]], np.ndarray]:
        """Logistic regression on frozen embeddings; returns per-label probabilities."""
        from sklearn.linear_model import LogisticRegression
        from sklearn.multiclass import OneVsRestClassifier

        x = self._embed(texts)
        base = LogisticRegression(max_iter=2000, random_state=seed)
        if targets.ndim == 2:  # one classifier per topic seen both on and off in training
            varying = np.flatnonzero(targets.any(axis=0) & ~targets.all(axis=0))
            model = OneVsRestClassifier(base).fit(x, targets[:, varying])

            def topic_probabilities(new: list[str]) -> np.ndarray:
                full = np.tile(targets.all(axis=0).astype(float), (len(new), 1))
                full[:, varying] = model.predict_proba(self._embed(new))
                return full

            return topic_probabilities
        model = base.fit(x, targets)

        def probabilities(new: list[str]) -> np.ndarray:
            full = np.zeros((len(new), n_labels))
            full[:, model.classes_] = model.predict_proba(self._embed(new))
            return full

        return probabilities

    def _nearest_reference(self, train: list[Example]) -> Predictor:
        bank = self._embed([e.text for e in train])
        refs = [str(e.label) for e in train]
        return lambda texts: [refs[i] for i in (self._embed(texts) @ bank.T).argmax(axis=1)]

    def _embed(self, texts: list[str]) -> np.ndarray:
        """Normalised embeddings; each distinct text is encoded once per backend (tasks share posts)."""
        from mmsoc.media.sentences import embed_texts

        new = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if new:
            self._vectors.update(zip(new, embed_texts(new, model=self.encoder)))
        return np.stack([self._vectors[t] for t in texts]) if texts else np.zeros((0, 0), np.float32)


def _targets(spec: TaskSpec, train: list[Example], multilabel: bool) -> np.ndarray:
    """Class indices (one label) or a 0/1 matrix over the labels (several)."""
    index = {label: i for i, label in enumerate(spec.labels)}
    if multilabel:
        matrix = np.zeros((len(train), len(spec.labels)), dtype=np.int64)
        for row, example in enumerate(train):
            matrix[row, [index[t] for t in example.label if t in index]] = 1
        return matrix
    return np.array([index[example.label] for example in train])


def _answer(spec: TaskSpec, probabilities: np.ndarray, multilabel: bool) -> str:
    """The label text of the most likely class, or the labels above 0.5 (at least the top one)."""
    if multilabel:
        chosen = np.flatnonzero(probabilities > 0.5)
        picked = chosen.tolist() if chosen.size else [int(np.argmax(probabilities))]
        return ",".join(spec.labels[i] for i in picked)
    return spec.labels[int(np.argmax(probabilities))]


def build(arg: str, options: ModelOptions) -> TextBaselineModel:
    return TextBaselineModel(options.data, classifier=arg or None, device=options.device)


MODEL = ModelEntry(
    "text-baseline",
    build,
    frozenset({"text"}),
    "the item's text alone, trained on the data's train split: frozen MiniLM + logistic regression, or "
    "the sequence classifier ID fine-tuned",
    usage="text-baseline or text-baseline:ID",
    free_text=False,
    scores=False,
)
