"""Multi-label tagging (YouTube topics): any number of labels out of a fixed set.

Parsing: comma/semicolon/newline-separated topics; strict needs every part to be a known topic,
lenient keeps the known ones; valid with at least one.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from mmsoc.metrics.inputs import TagInput
from mmsoc.tasks.kinds.base import INVALID, Parsed, TaskKind
from mmsoc.tasks.spec import TaskSpec
from mmsoc.tasks.words import tokens

_TAG_SPLIT = re.compile(r"[,;\n]")


class MultiLabel(TaskKind):
    name = "multilabel"
    explainable = True
    text_baseline = "multi_label"

    def parse(self, spec: TaskSpec, raw: str, strict: bool) -> Parsed:
        known = _topic_keys(spec)
        text = raw if strict else re.sub(r"^\s*(tags?|topics?)\s*:", "", raw.strip(), flags=re.IGNORECASE)
        parts = [part.strip(" \t\"'`*.[]()") for part in _TAG_SPLIT.split(text)]
        topics: list[str] = []
        for part in filter(None, parts):
            key = " ".join(tokens(part))
            topic = known.get(key) or (None if strict else known.get(key[:-1] if key.endswith("s") else ""))
            if topic is None and strict:
                return INVALID
            if topic is not None and topic not in topics:
                topics.append(topic)
        return Parsed(topics, True) if topics else INVALID

    def target(self, spec: TaskSpec, label: Any) -> str:
        """The topics, comma-separated."""
        tags = [label] if isinstance(label, str) else list(label)
        unknown = [tag for tag in tags if tag not in spec.labels]
        if not tags or unknown:
            raise ValueError(f"task {spec.id!r}: unknown or missing topics {unknown or tags!r}")
        return ",".join(tags)

    def random_answer(self, spec: TaskSpec, rng: np.random.Generator) -> str:
        """1-3 distinct topics drawn uniformly."""
        return ",".join(rng.choice(spec.labels, size=int(rng.integers(1, 4)), replace=False))

    def metric_input(self, spec: TaskSpec, predictions: Sequence[object], references: Sequence[object]) -> TagInput:
        """Tags outside the topic set are ignored and counted."""
        from mmsoc.metrics.labels import indicator

        return TagInput(indicator(references, spec.labels)[0], indicator(predictions, spec.labels)[0], spec.labels)

    def notes(self, spec: TaskSpec, predictions: Sequence[object], references: Sequence[object]) -> dict[str, object]:
        from mmsoc.metrics.labels import indicator

        pred, unknown_pred = indicator(predictions, spec.labels)
        return {
            "unknown_predicted_tags": unknown_pred,
            "unknown_reference_tags": indicator(references, spec.labels)[1],
            "empty_predictions": int((pred.sum(1) == 0).sum()),
        }


@functools.cache
def _topic_keys(spec: TaskSpec) -> dict[str, str]:
    return {" ".join(tokens(topic)): topic for topic in spec.labels}


KIND = MultiLabel()
