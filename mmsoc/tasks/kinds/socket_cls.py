"""SocKET classification (``CLS``): one option of the question's list, read from the generated answer.

The parsed label of a response is its answer text (:func:`mmsoc.tasks.socket.answers.answer_text`);
scoring reads it twice, with the official reader (the headline ``f1``, ``hit_rate``) and the lenient one
(``f1_lenient``, ``hit_rate_lenient``), so one run reports both. A response is valid when either reader
finds an option, strictly valid when the official one does (so ``success_rate`` is the official
``hit_rate``). References are class names (or their numbers).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np

from mmsoc.metrics.suite_inputs import ChoiceInput
from mmsoc.tasks.kinds._socket import SocketKind
from mmsoc.tasks.kinds.base import INVALID, Parsed
from mmsoc.tasks.spec import TaskSpec

PENALTY_SEED = 0
"""With the task id, seeds the wrong classes that replace missing answers in ``f1_penalized``."""


class SocketChoice(SocketKind):
    text_baseline = "none"
    """The text baseline answers label names; SocKET questions want their options."""

    def __init__(self, name: str, task_type: str):
        self.name, self.task_type = name, task_type

    def parse(self, spec: TaskSpec, raw: str, strict: bool) -> Parsed:
        from mmsoc.tasks.socket.answers import answer_text, lenient_choice, official_choice

        answer = answer_text(raw)
        found = official_choice(spec, answer) is not None or (not strict and lenient_choice(spec, answer) is not None)
        return Parsed(answer, True) if found else INVALID

    def target(self, spec: TaskSpec, label: object) -> str:
        """The option that means ``label``."""
        return spec.answers[spec.labels.index(self.check_reference(spec, label))][0]

    def random_answer(self, spec: TaskSpec, rng: np.random.Generator) -> str:
        return str(rng.choice([option for option, _ in spec.answers]))

    def check_reference(self, spec: TaskSpec, value: object) -> str:
        from mmsoc.tasks.socket.data import class_label

        return class_label(spec, value)

    def metric_input(self, spec: TaskSpec, predictions: Sequence[object], references: Sequence[object]) -> ChoiceInput:
        """Predictions are answer texts (None: nothing to read); each reader finds its option or none."""
        from mmsoc.tasks.socket.answers import answer_text, lenient_choice, official_choice

        truth = np.array([spec.labels.index(self.check_reference(spec, ref)) for ref in references])
        answers = [answer_text(p) if isinstance(p, str) else None for p in predictions]

        def read(reader) -> np.ndarray:
            found = [reader(spec, a) if a is not None else None for a in answers]
            return np.array([-1 if index is None else index for index in found], dtype=np.int64)

        return ChoiceInput(
            truth,
            read(official_choice),
            read(lenient_choice),
            len(spec.labels),
            zlib.crc32(spec.id.encode()) ^ PENALTY_SEED,
        )


KIND = SocketChoice("socket_cls", "CLS")
