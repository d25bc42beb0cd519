"""Single-label classification (misinformation, hate, Memotion): one label out of a fixed set.

Parsing, reported side by side:

* ``strict``: the whole response is the answer and nothing else (case, punctuation, ``_``/``-``
  and spaces ignored): a label, or the answer word the prompt asks for (``Yes``/``No``).
* ``lenient``: the answer is stated clearly in the opening words (the first sentence, at most
  ``OPENING_WORDS`` words). Negation is understood ("not humorous", "isn't hateful",
  "No, it is not hateful"); a negated label of a binary task means the other label, of a
  multi-class task it says nothing. Naming two different labels is invalid.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

import numpy as np

from mmsoc.metrics.inputs import LabelInput
from mmsoc.metrics.labels import canonical_label
from mmsoc.tasks.kinds.base import INVALID, Parsed, TaskKind
from mmsoc.tasks.spec import TaskSpec
from mmsoc.tasks.words import tokens

OPENING_WORDS = 20
NEGATION_SCOPE = 5
"""How many words before a label a negation may stand (within the same clause)."""
NEGATORS = frozenset({"not", "no", "non", "never", "neither", "nor", "hardly", "cannot"})
CLAUSE_BREAKS = frozenset({",", ";", ":", "but", "however", "although", "though", "yet"})
_SENTENCE_END = re.compile(r"[.!?\n](?:\s|$)")


class Classification(TaskKind):
    name = "classification"
    explainable = True
    text_baseline = "single_label"
    confusion = True

    def parse(self, spec: TaskSpec, raw: str, strict: bool) -> Parsed:
        forms = _forms(spec, not strict)
        if strict:
            label = forms.get(tuple(t for t in tokens(raw) if t not in ",;:"))
            return Parsed(label, True) if label else INVALID
        found = set(_mentions(spec, forms, _opening(raw)))
        return Parsed(found.pop(), True) if len(found) == 1 else INVALID

    def target(self, spec: TaskSpec, label: object) -> str:
        """Yes/No for yes-no questions, else the label word."""
        if label not in spec.labels:
            raise ValueError(f"task {spec.id!r}: label {label!r} is not one of {', '.join(spec.labels)}")
        if spec.yes_no:
            return "Yes" if label == spec.labels[0] else "No"
        return str(label)

    def random_answer(self, spec: TaskSpec, rng: np.random.Generator) -> str:
        return str(rng.choice(spec.labels))

    def check_reference(self, spec: TaskSpec, value: object) -> object:
        if canonical_label(value, spec.labels) is None:
            raise ValueError(f"{value!r} is not one of {', '.join(spec.labels)}")
        return value

    def metric_input(self, spec: TaskSpec, predictions: Sequence[object], references: Sequence[object]) -> LabelInput:
        """Predictions that name no label count as wrong (an extra 'invalid' column)."""
        index = {label: i for i, label in enumerate(spec.labels)}
        true_idx = np.array([index[self._reference(spec, ref)] for ref in references], dtype=np.int64)
        parsed = [canonical_label(pred, spec.labels) for pred in predictions]
        pred_idx = np.array([len(spec.labels) if p is None else index[p] for p in parsed], dtype=np.int64)
        return LabelInput(true_idx, pred_idx, spec.labels)

    def notes(self, spec: TaskSpec, predictions: Sequence[object], references: Sequence[object]) -> dict[str, object]:
        return {"invalid_predictions": sum(canonical_label(pred, spec.labels) is None for pred in predictions)}

    @staticmethod
    def _reference(spec: TaskSpec, value: object) -> str:
        label = canonical_label(value, spec.labels)
        if label is None:
            raise ValueError(f"reference {value!r} is not one of the labels {list(spec.labels)}")
        return label


@functools.cache
def _forms(spec: TaskSpec, lenient: bool) -> dict[tuple[str, ...], str]:
    """Accepted word sequences -> label: labels and answer words, plus synonyms when lenient."""
    pairs = [(label, label) for label in spec.labels] + list(spec.answers)
    pairs += list(spec.synonyms) if lenient else []
    return {tuple(tokens(form)): label for form, label in pairs}


def _opening(raw: str) -> list[str]:
    """Tokens of the first sentence, at most ``OPENING_WORDS`` words."""
    text = raw.strip()
    end = _SENTENCE_END.search(text)
    return tokens(text[: end.start()] if end else text)[:OPENING_WORDS]


def _mentions(spec: TaskSpec, forms: dict[tuple[str, ...], str], words: list[str]) -> Iterable[str]:
    """Labels stated in ``words``, longest form first, with negated labels flipped (binary) or dropped."""
    longest = max(map(len, forms))
    answer_words = {tuple(tokens(word)) for word, _ in spec.answers}
    i = 0
    while i < len(words):
        for size in range(min(longest, len(words) - i), 0, -1):
            label = forms.get(tuple(words[i : i + size]))
            if label is not None:
                break
        else:
            i += 1
            continue
        # Yes/No answer words are never negated themselves ("No, ..." is an answer, not a negation).
        negated = tuple(words[i : i + size]) not in answer_words and _negated(words, i)
        if not negated:
            yield label
        elif len(spec.labels) == 2:
            yield spec.labels[1 - spec.labels.index(label)]
        i += size


def _negated(words: list[str], start: int) -> bool:
    for word in reversed(words[max(0, start - NEGATION_SCOPE) : start]):
        if word in CLAUSE_BREAKS:
            return False
        if word in NEGATORS:
            return True
    return False


KIND = Classification()
