"""Per-option rows of MCQA items, and the linear probe both text probes share: option features and a
logistic-regression scorer trained on correct-vs-incorrect options."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from desiq.inputs import InputSetting

if TYPE_CHECKING:
    import numpy as np

    from desiq.records import MCQAItem


def flatten(items: Sequence[MCQAItem]) -> tuple[list[str], list[str], np.ndarray, np.ndarray]:
    """Per-option rows: (questions, options, is_correct, option count of each item)."""
    import numpy as np

    questions = [item.question for item in items for _ in item.options]
    options = [option for item in items for option in item.options]
    correct = np.array([i == item.answer_idx for item in items for i in range(len(item.options))])
    return questions, options, correct, np.array([len(item.options) for item in items])


def split_scores(flat: np.ndarray, counts: np.ndarray) -> list[np.ndarray]:
    import numpy as np

    return np.split(np.asarray(flat, dtype=np.float64), np.cumsum(counts)[:-1])


class LinearProbe:
    """Subclasses give ``name``, ``C`` and ``_features`` (and ``_prepare`` when the features are fitted)."""

    name = "linear"
    C = 1.0

    def _features(self, questions: list[str], options: list[str]) -> Any:
        raise NotImplementedError

    def _prepare(self, options: list[str]) -> None:
        """Fit whatever the features need from the training options (nothing by default)."""

    def fit(self, items: Sequence[MCQAItem], inputs: str, seed: int) -> None:
        from sklearn.linear_model import LogisticRegression

        self.use_question = InputSetting.parse(inputs).text_only(f"probe {self.name!r}").question
        questions, options, correct, _ = flatten(items)
        self._prepare(options)
        self.model = LogisticRegression(C=self.C, max_iter=2000, random_state=seed)
        self.model.fit(self._features(questions, options), correct)

    def score(self, items: Sequence[MCQAItem]) -> list[np.ndarray]:
        questions, options, _, counts = flatten(items)
        return split_scores(self.model.decision_function(self._features(questions, options)), counts)
