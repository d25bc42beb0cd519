"""SocKET scoring against independent references: scikit-learn macro-F1, scipy/pandas Pearson r, a
hand-worked Dice case and eval.py's own span helpers re-written small; Table 2 averages by hand."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest
from scipy.stats import pearsonr
from sklearn.metrics import precision_recall_fscore_support

from mmsoc.metrics.spans import char_offsets, dice, longest_common_substring, snapped_spans
from mmsoc.metrics.stats import replicate_values, resample_counts
from mmsoc.tasks import score_task, score_task_detailed
from mmsoc.tasks.registry import get_task, task_ids
from mmsoc.tasks.socket.averages import table2


def _official_lcs(s1: str, s2: str) -> str:
    """eval.py's longest_common_substring, re-written small."""
    m = [[0] * (1 + len(s2)) for _ in range(1 + len(s1))]
    longest = x_longest = 0
    for x in range(1, 1 + len(s1)):
        for y in range(1, 1 + len(s2)):
            if s1[x - 1] == s2[y - 1]:
                m[x][y] = m[x - 1][y - 1] + 1
                if m[x][y] > longest:
                    longest, x_longest = m[x][y], x
    return s1[x_longest - longest : x_longest].strip()


def _official_offsets(s: str, substrings: list[str]) -> list[int]:
    indices = []
    for sub in substrings:
        start = 0
        while start < len(s):
            start = s.find(sub, start)
            if start == -1:
                break
            indices.extend(range(start, start + len(sub)))
            start += len(sub)
    return sorted(set(indices))


def test_classification_f1_drops_missing_answers_like_eval_py():
    rng = np.random.default_rng(3)
    labels = get_task("socket/hateoffensive").labels  # options Hate, Offensive, Neither
    words = ["Hate", "Offensive", "Neither", "maybe", None, "neither really"]
    truth = rng.integers(0, 3, 60)
    answers = [words[i] for i in rng.integers(0, len(words), 60)]
    metrics = score_task("socket/hateoffensive", answers, [labels[t] for t in truth])
    read = {"hate": 0, "offensive": 1, "neither": 2}
    pred = [next((v for k, v in read.items() if a and a.lower().startswith(k)), None) for a in answers]
    kept = [i for i, p in enumerate(pred) if p is not None]
    expected = precision_recall_fscore_support(
        truth[kept], np.array(pred)[kept].astype(int), average="macro", zero_division=0
    )[2]
    assert metrics["f1"] == pytest.approx(expected, abs=1e-12)
    assert metrics["hit_rate"] == pytest.approx(len(kept) / 60)
    assert metrics["n"] == 60


def test_penalized_f1_replaces_missing_answers_with_a_seeded_wrong_class():
    labels = get_task("socket/sarc").labels
    truth = [0, 1, 1, 0, 1, 0, 0, 1]
    answers = ["Yes", None, "huh", "No", "No", "?", "Yes", "Yes"]
    metrics = score_task("socket/sarc", answers, [labels[t] for t in truth])
    # binary: the wrong class is the other one, so eval.py --penalize_missing is deterministic here
    penalized = [0, 0, 0, 1, 1, 1, 0, 0]
    assert metrics["f1_penalized"] == pytest.approx(
        precision_recall_fscore_support(truth, penalized, average="macro", zero_division=0)[2], abs=1e-12
    )
    multi = get_task("socket/crowdflower")
    gold = [multi.labels[i % 13] for i in range(40)]
    first = score_task_detailed("socket/crowdflower", [None] * 40, gold)
    again = score_task_detailed("socket/crowdflower", [None] * 40, gold)
    assert first.metrics["f1_penalized"] == again.metrics["f1_penalized"]  # seeded
    assert first.metrics["f1_penalized"] < 0.2 and np.isnan(first.metrics["f1"]) and first.metrics["hit_rate"] == 0


def test_regression_pearson_and_rescaled_against_scipy_and_pandas():
    rng = np.random.default_rng(5)
    truth = rng.uniform(0, 5, 50).round(2)
    answers = [f"{x:.1f}" if i % 7 else "somewhere between 1 and 2" for i, x in enumerate(truth + rng.normal(0, 1, 50))]
    answers = [a.replace("-", "") for a in answers]
    metrics = score_task("socket/emobank#valence", answers, list(truth))
    pred = pd.Series([float(a) if i % 7 else np.nan for i, a in enumerate(answers)])
    kept = pred.notna()
    r = pearsonr(pred[kept], truth[kept.to_numpy()])[0]
    assert metrics["corr_original"] == pytest.approx(r, abs=1e-12)
    assert metrics["corr_original"] == pytest.approx(pred.corr(pd.Series(truth)), abs=1e-12)
    assert metrics["corr_score"] == pytest.approx((r + 1) / 2, abs=1e-12)
    assert metrics["hit_rate"] == pytest.approx(kept.mean())
    zeroed = pred.fillna(0.0)
    assert metrics["corr_original_penalized"] == pytest.approx(pearsonr(zeroed, truth)[0], abs=1e-12)


def test_dice_hand_worked_case():
    text = "you are a stupid idiot, really"
    # gold "stupid idiot" covers offsets 10..21 (12 characters)
    gold = char_offsets(text, ["stupid idiot"])
    assert gold == set(range(10, 22))
    # the answer quotes "idiot" (offsets 17..21) and "are" (4..6); snapped they stay as they are
    spans = snapped_spans(text, ["idiot", "are"])
    assert spans == ["idiot", "are"]
    predicted = char_offsets(text, spans)
    assert predicted == set(range(17, 22)) | {4, 5, 6}
    assert dice(predicted, gold) == pytest.approx(2 * 5 / (8 + 12))
    assert dice({0, 1, 4, 5}, {0, 1, 6}) == pytest.approx(0.5714285714285714)  # eval.py's docstring case
    assert dice(set(), set()) == 1.0 and dice({1}, set()) == 0.0


def test_span_helpers_equal_eval_py_on_random_strings():
    rng = random.Random(0)
    for _ in range(300):
        text = "".join(rng.choice("ab c") for _ in range(rng.randint(0, 25)))
        span = "".join(rng.choice("ab c") for _ in range(rng.randint(0, 8)))
        assert longest_common_substring(text, span) == _official_lcs(text, span)
        spans = [s for s in (span, span[:2]) if s]
        assert sorted(char_offsets(text, spans)) == _official_offsets(text, spans)


def test_span_task_scores_mean_dice_with_snapping():
    spec = get_task("socket/toxic-span")
    refs = [
        {"text": "what a stupid idea this is", "spans": ["stupid idea"]},
        {"text": "lovely weather today", "spans": []},
        {"text": "go away you moron", "spans": ["moron"]},
    ]
    answers = ['"stupid idea" and "idea"', "", None]
    metrics = score_task(spec.id, answers, refs)
    # item 1: exact (1.0); item 2: no gold, no span read -> 1; item 3: missing -> 0
    assert metrics["f1"] == pytest.approx((1.0 + 1.0 + 0.0) / 3)
    assert metrics["hit_rate"] == pytest.approx(1 / 3)
    snapped = score_task(spec.id, ['"the stupid ideas"'], refs[:1])  # snapped to "stupid idea"
    assert snapped["f1"] == pytest.approx(1.0)


def test_bootstrap_replicates_equal_scoring_the_resampled_items():
    labels = get_task("socket/sarc").labels
    truth = [0, 1, 1, 0, 1, 0, 0, 1, 1, 0]
    answers = ["Yes", "No", None, "No", "Yes", "Yes", "No", "No", "hmm", "Yes"]
    scores = score_task_detailed("socket/sarc", answers, [labels[t] for t in truth])
    counts = resample_counts(10, 5, seed=1)
    for key in ("f1", "f1_penalized", "hit_rate"):
        values = replicate_values(scores.stats[key], counts)
        for replicate, weights in zip(values, counts[0]):
            rows = np.repeat(np.arange(10), weights.astype(int))
            again = score_task("socket/sarc", [answers[i] for i in rows], [labels[truth[i]] for i in rows])
            assert replicate == pytest.approx(again[key], nan_ok=True), key


def test_table2_averages_are_unweighted_means_over_tasks():
    scores = {
        "socket/sarc": 0.6,
        "socket/humor-pairs": 0.4,
        "socket/emobank#valence": 0.7,
        "socket/toxic-span": 0.1,
        "socket/hateoffensive": float("nan"),
    }
    summary = table2(scores)
    assert summary["categories"]["Humor & Sarcasm"] == pytest.approx(0.5)
    assert summary["categories"]["Sentiment & Emotion"] == pytest.approx(0.7)
    assert summary["categories"]["Offensiveness"] == pytest.approx(0.1)
    assert summary["types"] == pytest.approx({"CLS": 0.6, "PAIR": 0.4, "REG": 0.7, "SPAN": 0.1})
    assert summary["overall"] == pytest.approx((0.6 + 0.4 + 0.7 + 0.1) / 4)
    assert summary["undefined"] == ["hateoffensive"] and len(summary["missing"]) == 58 - 5
    assert not summary["complete"]
    full = table2({task: 0.5 for task in task_ids("socket")})
    assert full["complete"] and full["overall"] == pytest.approx(0.5) and full["tasks"] == 58
