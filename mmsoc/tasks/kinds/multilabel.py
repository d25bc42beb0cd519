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

from mmsoc.core.records import Example
from mmsoc.metrics.inputs import TagInput
from mmsoc.models.base import Request
from mmsoc.tasks.kinds.base import INVALID, Parsed, TaskScores, check_lengths, image_request
from mmsoc.tasks.spec import TaskSpec
from mmsoc.tasks.words import tokens

_TAG_SPLIT = re.compile(r"[,;\n]")


class MultiLabel:
    name = "multilabel"
    explainable = True
    text_baseline = "multi_label"
    confusion = False

    def request(self, spec: TaskSpec, example: Example, instruction: str, seed: int | None = None) -> Request:
        return image_request(example, instruction, seed)

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

    def check_reference(self, spec: TaskSpec, value: Any) -> Any:
        return value

    def score(
        self,
        spec: TaskSpec,
        predictions: Sequence[Any],
        references: Sequence[Any],
        *,
        text_encoder: str | None = None,
        fast: bool = False,
    ) -> TaskScores:
        """Tags outside the topic set are ignored and counted."""
        from mmsoc.metrics.labels import indicator
        from mmsoc.metrics.registry import run_groups

        check_lengths(spec.id, predictions, references)
        truth, unknown_ref = indicator(references, spec.labels)
        pred, unknown_pred = indicator(predictions, spec.labels)
        stats, info = run_groups(self.name, TagInput(truth, pred, spec.labels), fast)
        metrics: dict[str, float | int] = {key: stat.value() for key, stat in stats.items()}
        info.update(
            unknown_predicted_tags=unknown_pred,
            unknown_reference_tags=unknown_ref,
            empty_predictions=int((pred.sum(1) == 0).sum()),
        )
        return TaskScores(spec.id, {**metrics, "n": len(references)}, stats, info)


@functools.cache
def _topic_keys(spec: TaskSpec) -> dict[str, str]:
    return {" ".join(tokens(topic)): topic for topic in spec.labels}


KIND = MultiLabel()
