"""AFLite (Le Bras et al., "Adversarial Filters of Dataset Biases", ICML 2020), the established filter
offered beside the balanced subset (``desiq subset --method aflite``).

Each round fits ``PARTITIONS`` linear probes, each on a random share ``TRAIN_SHARE`` of the questions left
and scored on the rest; a question's predictability is the share of the probes not trained on it that
answer it. The ``STEP`` share of the questions left with the highest predictability at or above
``THRESHOLD`` is removed, and the rounds go on until fewer than that many reach the threshold or the next
round would leave fewer than ``min_keep``. As everywhere in desiq, partitions are drawn by video (a probe
never scores a question of a video it was trained on) and a tie at the top counts as a share of a hit.
The paper's features are frozen embeddings with a logistic regression; here the probe is a blind probe
(``tfidf-linear`` by default) on the question and options (``q+a``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from desiq.probes.ties import hit_share
from desiq.records import MCQAItem

if TYPE_CHECKING:
    from desiq.probes import ProbeBackend

PARTITIONS = 64
TRAIN_SHARE = 0.5
THRESHOLD = 0.75
STEP = 0.05
INPUTS = "q+a"


@dataclass(frozen=True)
class Filtered:
    keep: np.ndarray
    """A mask over the questions given."""
    rounds: int


def predictability(
    backend: ProbeBackend, items: Sequence[MCQAItem], seed: int, partitions: int | None = None
) -> np.ndarray:
    """Per question: the share of the probes fitted without its video that answer it."""
    rng = np.random.default_rng(seed)
    videos = np.array([item.video for item in items], dtype=object)
    distinct = sorted(set(videos.tolist()))
    right, scored = np.zeros(len(items)), np.zeros(len(items))
    for partition in range(partitions or PARTITIONS):
        trained = rng.choice(len(distinct), size=max(1, math.ceil(TRAIN_SHARE * len(distinct))), replace=False)
        train = np.isin(videos, [distinct[i] for i in trained])
        if train.all():
            continue
        backend.fit([item for item, t in zip(items, train) if t], INPUTS, seed + partition)
        held = np.flatnonzero(~train)
        for n, scores in zip(held.tolist(), backend.score([items[n] for n in held.tolist()])):
            right[n] += hit_share(scores.tolist(), int(items[n].answer_idx or 0))
            scored[n] += 1
    return np.divide(right, scored, out=np.zeros(len(items)), where=scored > 0)


def aflite(
    backend: ProbeBackend, items: Sequence[MCQAItem], min_keep: int, seed: int = 0, partitions: int | None = None
) -> Filtered:
    """The questions AFLite keeps (never fewer than ``min_keep``, nor fewer than two videos)."""
    left = np.arange(len(items))
    rounds = 0
    while len(left) > min_keep and len({items[n].video for n in left.tolist()}) > 2:
        score = predictability(backend, [items[n] for n in left.tolist()], seed + rounds, partitions)
        rounds += 1
        step = min(max(1, math.ceil(STEP * len(left))), len(left) - min_keep)
        order = sorted(np.flatnonzero(score >= THRESHOLD).tolist(), key=lambda k: (-score[k], k))
        drop = order[:step]
        left = np.delete(left, drop)
        if len(drop) < step:
            break
    keep = np.zeros(len(items), dtype=bool)
    keep[left] = True
    return Filtered(keep, rounds)
