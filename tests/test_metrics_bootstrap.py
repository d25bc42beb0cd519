"""Bootstrap replicates from per-item statistics equal the libraries run on the resampled items."""

from __future__ import annotations

import numpy as np
import pytest

from mmsoc.metrics.stats import percentile_interval, replicate_values, resample_counts, seed_mean_replicates
from mmsoc.tasks import score_task, score_task_detailed

CASES = {
    "hate": (
        ["hateful", None, "not_hateful", "not_hateful", "hateful", "hateful"],
        ["hateful", "not_hateful", "not_hateful", "hateful", "hateful", "not_hateful"],
    ),
    "sentiment": (
        ["positive", "negative", "negative", "neutral", None, "neutral"],
        ["positive", "neutral", "negative", "negative", "positive", "neutral"],
    ),
    "tagging": (
        [["music", "pop_music"], "sport", None, ["film"], ["jazz", "music"]],
        [["music"], ["sport", "tennis"], ["film"], ["film", "jazz"], ["jazz"]],
    ),
    "ocr": (
        ['"hello world"', "good bye", None, "a b c", "ünïcödé text"],
        ["hello world", "goodbye", "lost", "a b d", "ünïcödé"],
    ),
    "social_context": (
        ["a cat on a mat", "", "people celebrate a festival together", "the cats were running", "x"],
        ["the cat sat on the mat", "an empty answer", "a festival with people", "cats run fast", "x y"],
    ),
}


@pytest.mark.parametrize("task", sorted(CASES))
def test_replicates_equal_library_on_resampled_items(task):
    pred, ref = CASES[task]
    details = score_task_detailed(task, pred, ref, fast=True)
    counts = resample_counts(len(ref), 4, seed=3)
    assert len(counts) == 1 and counts[0].shape == (4, len(ref)) and (counts[0].sum(1) == len(ref)).all()
    for replicate in range(4):
        rows = np.repeat(np.arange(len(ref)), counts[0][replicate].astype(int))
        direct = score_task(task, [pred[i] for i in rows], [ref[i] for i in rows], fast=True)
        for key, stat in details.stats.items():
            got = replicate_values(stat, counts)[replicate]
            if np.isnan(direct[key]):
                assert np.isnan(got), key
            else:
                assert abs(got - direct[key]) < 1e-9, (key, got, direct[key])


def test_point_values_equal_statistics():
    for task, (pred, ref) in CASES.items():
        details = score_task_detailed(task, pred, ref, fast=True)
        for key, stat in details.stats.items():
            assert abs(stat.value() - details.metrics[key]) < 1e-9, (task, key)


def test_resampling_is_deterministic_and_blocked():
    a = resample_counts(5, 10, seed=1)
    b = resample_counts(5, 10, seed=1)
    assert all((x == y).all() for x, y in zip(a, b))
    assert not (resample_counts(5, 10, seed=2)[0] == a[0]).all()


def test_seed_mean_replicates():
    per_seed = np.array([[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]])
    assert (seed_mean_replicates(per_seed[:1], 3, seed=0) == per_seed[0]).all()
    mixed = seed_mean_replicates(per_seed, 3, seed=0)
    # each replicate averages two seed draws of the same item resample: between the two seeds' values
    assert ((mixed >= per_seed.min(0)) & (mixed <= per_seed.max(0))).all()


def test_percentile_interval_ignores_nan():
    low, high = percentile_interval(np.array([np.nan, *range(101)], dtype=float))
    assert np.allclose((low, high), (2.5, 97.5))
    assert np.isnan(percentile_interval(np.array([np.nan]))[0])
