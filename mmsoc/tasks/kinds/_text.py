"""What the free-text kinds (OCR, generation) share: text references and predictions, and scoring in which
each distinct pair is scored once."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mmsoc.metrics.inputs import TextInput
from mmsoc.tasks.kinds.base import TaskKind, TaskScores, check_lengths, text_prediction, text_value
from mmsoc.tasks.spec import TaskSpec


class TextKind(TaskKind):
    """A kind whose answers are text: references and predictions must be text (None: a missing answer),
    normalised by ``normalized`` before scoring."""

    def check_reference(self, spec: TaskSpec, value: object) -> str:
        return text_value(value)

    def check_prediction(self, spec: TaskSpec, value: object) -> str | None:
        return text_prediction(value)

    def normalized(self, value: object) -> str:
        """The text a prediction or reference is scored as."""
        raise NotImplementedError

    def score(
        self,
        spec: TaskSpec,
        predictions: Sequence[object],
        references: Sequence[object],
        *,
        text_encoder: str | None = None,
        fast: bool = False,
    ) -> TaskScores:
        check_lengths(spec.id, predictions, references)
        scores = score_text(
            self.name,
            spec.id,
            [self.normalized(p) for p in predictions],
            [self.normalized(r) for r in references],
            text_encoder,
            fast,
        )
        scores.info.update(self.notes(spec, predictions, references))
        return scores


def score_text(
    kind: str, task: str, predictions: Sequence[str], references: Sequence[str], text_encoder: str | None, fast: bool
) -> TaskScores:
    """Run the kind's metric groups once per distinct (prediction, reference) pair and give every item
    its pair's statistics: each per-item statistic depends on its own pair only."""
    from mmsoc.metrics.normalize import word_lengths
    from mmsoc.metrics.registry import run_groups

    pairs: dict[tuple[str, str], int] = {}
    inverse = np.asarray([pairs.setdefault(pair, len(pairs)) for pair in zip(predictions, references)], dtype=np.int64)
    data = TextInput([p for p, _ in pairs], [r for _, r in pairs], text_encoder)
    stats, info = run_groups(kind, data, fast)
    stats = {key: stat.subset(inverse) for key, stat in stats.items()}
    info["empty_predictions"] = sum(not p.strip() for p in predictions)
    metrics: dict[str, float | int] = {key: stat.value() for key, stat in stats.items()}
    return TaskScores(
        task,
        {**metrics, "n": len(references)},
        stats,
        info,
        np.asarray(word_lengths(predictions)),
        np.asarray(word_lengths(references)),
    )
