"""SuperTweetEval multi-label tasks (topic, emotion): any number of the labels, scored by macro-F1 over
every label (scikit-learn on indicator matrices, as the official script and the paper)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from mmsoc.tasks.kinds._ste import SteKind
from mmsoc.tasks.kinds.base import INVALID, Parsed
from mmsoc.tasks.spec import TaskSpec

if TYPE_CHECKING:
    from mmsoc.metrics.inputs import TagInput
    from mmsoc.tasks.supertweeteval.sample import SampleDraw


class MultiLabel(SteKind[list[str]]):
    name = "ste_multilabel"
    text_baseline = "multi_label"
    gold_field = "gold_label_list"
    named_labels = True

    def parse(self, spec: TaskSpec, raw: str, strict: bool) -> Parsed:
        from mmsoc.tasks.supertweeteval.answers import lenient_labels, official_labels

        if strict:
            return Parsed(*official_labels(raw, spec.labels))
        labels = lenient_labels(raw, spec.labels)
        return Parsed(labels, True) if labels else INVALID

    def target(self, spec: TaskSpec, label: object) -> str:
        return ",".join(self.check_reference(spec, label))

    def random_answer(self, spec: TaskSpec, rng: np.random.Generator) -> str:
        return ",".join(rng.choice(spec.labels, size=int(rng.integers(1, 4)), replace=False))

    def check_reference(self, spec: TaskSpec, value: object) -> list[str]:
        from mmsoc.metrics.labels import parse_tags

        tags = [str(tag) for tag in value] if isinstance(value, (list, tuple)) else parse_tags(value)
        unknown = [tag for tag in tags if tag not in spec.labels]
        if unknown:
            raise ValueError(f"unknown labels {unknown} (known: {', '.join(spec.labels)})")
        return tags

    def checked_input(self, spec: TaskSpec, predictions: Sequence[object], references: list[list[str]]) -> TagInput:
        from mmsoc.metrics.inputs import TagInput

        def matrix(rows: Sequence[Any]) -> np.ndarray:
            out = np.zeros((len(rows), len(spec.labels)), dtype=np.int64)
            for i, row in enumerate(rows):
                for label in row or ():
                    if label in spec.labels:
                        out[i, spec.labels.index(label)] = 1
            return out

        return TagInput(matrix(references), matrix(predictions), spec.labels)

    def read_gold(self, row: dict[str, Any], names: tuple[str, ...]) -> list[str]:
        """The names of the 1s of the indicator vector."""
        value = row[self.gold_field]
        if len(value) != len(names):
            raise ValueError(f"{len(value)} indicators for {len(names)} labels")
        return [name for name, on in zip(names, value) if int(on) == 1]

    def sample_row(self, draw: SampleDraw) -> dict[str, object]:
        from mmsoc.tasks.supertweeteval.sample import labels_row

        return labels_row(draw)


KIND = MultiLabel()
