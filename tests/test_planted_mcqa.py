"""The planted-shortcut generator: each family's rule meets its planted strength, without ties, and noise
sits at chance. The rules are written here from their definitions, apart from desiq's shortcuts."""

from __future__ import annotations

import re

import numpy as np
import pytest
from planted_mcqa import FAMILIES, chance_fraction, planted_rows, write_planted

from desiq.formats import read_mcqa

N = 1000
WORD = re.compile(r"[\w']+")


def words(text: str) -> set[str]:
    return set(WORD.findall(text.lower()))


def jaccard(a: str, b: str) -> float:
    x, y = words(a), words(b)
    return len(x & y) / len(x | y)


def rule_scores(family: str, row: dict) -> list[float]:
    """The family's rule: one score per option, the pick the top one."""
    options = row["choices"]
    if family == "longest":
        return [float(len(o)) for o in options]
    if family == "position":
        return [1.0] + [0.0] * (len(options) - 1)
    if family == "overlap":
        return [float(len(words(row["question"]) & words(o))) for o in options]
    similarity = [np.mean([jaccard(o, p) for p in options if p is not o]) for o in options]
    return [-float(s) for s in similarity]  # odd one out: the least like the others


def pick(scores: list[float]) -> int | None:
    """The rule's pick, or None on a tie at the top."""
    top = max(scores)
    return scores.index(top) if scores.count(top) == 1 else None


def sampling_error(p: float, n: int) -> float:
    return 3 * float(np.sqrt(p * (1 - p) / n))


@pytest.mark.parametrize("k", [4, 5])
@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_meets_its_planted_strength_without_ties(family, k):
    rows = planted_rows(N, k, family, 0.3, seed=3)
    picks = [pick(rule_scores(family, row)) for row in rows]
    assert None not in picks
    accuracy = np.mean([p == row["answer_idx"] for p, row in zip(picks, rows)])
    target = 1 / k + 0.3 * (1 - 1 / k)
    assert chance_fraction(k, 0.3) == pytest.approx(target)
    assert abs(accuracy - target) <= sampling_error(target, N)


@pytest.mark.parametrize("family", ["longest", "overlap", "odd_one_out"])
def test_the_planted_pick_sits_at_a_uniform_position(family):
    rows = planted_rows(N, 4, family, 0.3, seed=5)
    first = np.mean([row["answer_idx"] == 0 for row in rows])
    assert abs(first - 0.25) <= sampling_error(0.25, N)


def test_noise_has_a_random_gold_and_no_planted_rule():
    rows = planted_rows(N, 4, None, 0.0, seed=7)
    gold = np.bincount([row["answer_idx"] for row in rows], minlength=4) / N
    assert np.all(np.abs(gold - 0.25) <= sampling_error(0.25, N))
    for family in ("longest", "overlap"):
        shares = []
        for row in rows:
            scores = rule_scores(family, row)
            top = [i for i, s in enumerate(scores) if s == max(scores)]
            shares.append((row["answer_idx"] in top) / len(top))
        assert abs(np.mean(shares) - 0.25) <= sampling_error(0.25, N)


def test_strength_zero_is_chance_and_one_is_always():
    always = planted_rows(200, 4, "longest", 1.0, seed=1)
    assert all(pick(rule_scores("longest", r)) == r["answer_idx"] for r in always)
    never_first = planted_rows(200, 4, "position", 0.0, seed=1)
    assert sum(r["answer_idx"] == 0 for r in never_first) == 50


def test_same_seed_same_rows_and_groups_of_five():
    assert planted_rows(50, 3, "overlap", 0.5, seed=2) == planted_rows(50, 3, "overlap", 0.5, seed=2)
    assert planted_rows(50, 3, "overlap", 0.5, seed=2) != planted_rows(50, 3, "overlap", 0.5, seed=9)
    groups = [r["group"] for r in planted_rows(12, 4, None, 0.0, seed=0)]
    assert groups[:5] == ["g0"] * 5 and groups[10:] == ["g2"] * 2


def test_odd_one_out_needs_three_options_and_families_are_checked():
    with pytest.raises(ValueError, match="at least 3"):
        planted_rows(10, 2, "odd_one_out", 0.3, seed=0)
    with pytest.raises(ValueError, match="unknown family"):
        planted_rows(10, 4, "nothing", 0.3, seed=0)


def test_the_generic_reader_takes_the_file_without_a_mapping(tmp_path):
    path = write_planted(tmp_path / "planted.jsonl", 30, 5, "position", 0.3, seed=4)
    items = read_mcqa(path, "mcqa")
    rows = planted_rows(30, 5, "position", 0.3, seed=4)
    assert [i.answer_idx for i in items] == [r["answer_idx"] for r in rows]
    assert [i.options for i in items] == [tuple(r["choices"]) for r in rows]
    assert len({i.video for i in items}) == 6
