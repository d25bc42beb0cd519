"""To add a perturbation that moves the answer: one module declaring ``PERTURBATION`` (its metadata and its
``apply`` function), and ``desiq list``, ``desiq perturb`` and ``desiq eval`` take it."""

from __future__ import annotations

import json

import pytest
from scratch_plugin import run, scratch_plugin

from desiq.formats import read_mcqa
from desiq.records import to_a2
from desiq.sample import sample_items

REVERSE = """
from desiq.perturbation_schemes import PerturbResult, reorder
from desiq.perturbations import Direction, Perturbation, Target


def reverse(items, partners, rng):
    return PerturbResult([reorder(item, range(len(item.options))[::-1]) for item in items])


PERTURBATION = Perturbation(
    name="REV",
    change="the order of the options -> reversed",
    targets=frozenset({Target.order}),
    keeps_answer_index=False,
    bias=Direction.original,
    sound=Direction.original,
    apply=reverse,
)
"""


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("rev")
    return {**scratch_plugin(root, "rev_plugin", REVERSE), "MMSOC_CACHE": str(root / "cache")}


def test_the_new_perturbation_is_listed(env):
    done = run(env, "desiq", "list", "perturbations")
    assert done.returncode == 0, done.stderr
    rev = next(line for line in done.stdout.splitlines() if line.startswith("REV "))
    assert "plugin rev_plugin (rev_plugin)" in rev and rev.endswith("the order of the options -> reversed")


@pytest.mark.parametrize("choices", ["A4", "A2"])
def test_desiq_perturb_writes_it_with_the_answer_moved(env, tmp_path, choices):
    out = tmp_path / "rev.jsonl"
    done = run(env, "desiq", "perturb", "--data", "sample", "--condition", "REV", "--choices", choices, "--out", out)
    assert done.returncode == 0, done.stderr
    released = sample_items("val") if choices == "A4" else to_a2(sample_items("val"))
    written = read_mcqa(out)
    assert len(written) == len(released) == (81 if choices == "A4" else 243)
    for before, after in zip(released, written):
        k = len(before.options)
        assert after.options == before.options[::-1]
        assert after.answer_idx == k - 1 - before.answer_idx  # a reversal of 2 or 4 options moves every answer
        assert after.answer == before.answer
    assert f"{len(released)} answers moved to another index" in done.stderr


def test_desiq_eval_runs_it_as_a_condition(env, tmp_path):
    done = run(env, "desiq", "eval", "--model", "random", "--data", "sample", "--inputs", "q+a",
               "--condition", "REV", "--out", tmp_path / "run", "--no-progress")  # fmt: skip
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "run" / "metrics.json").read_text())["results"]
    # the sample's val split: 81 questions of 16 videos, three A2 pairs each
    assert [(r["condition"], r["config"], r["n"], r["videos"]) for r in results] == [
        ("REV", "A4", 81, 16),
        ("REV", "A2", 243, 16),
    ]
