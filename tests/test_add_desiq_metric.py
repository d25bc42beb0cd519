"""To add a metric to ``desiq eval``: one module declaring ``GROUP``, a metric group of the kind ``mcqa``
(it scores :class:`mmsoc.metrics.inputs.MCQAInput`), and every condition and configuration of metrics.json
carries it, its interval over videos beside it."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest
from scratch_plugin import run, scratch_plugin

FIRST_OPTION = """
from mmsoc.metrics.registry import Metric, MetricGroup
from mmsoc.metrics.stats import mean_stat


def first_option_share(data):
    return {"first_option_share": mean_stat([all(c == 0 for c in chosen) for chosen in data.chosen])}, {}


GROUP = MetricGroup(
    "first_option",
    ("mcqa",),
    (Metric("first_option_share", True, "share of questions answered with the first option", interval="ci95_first"),),
    first_option_share,
    order=400,
)
"""


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("first")
    return {**scratch_plugin(root, "first_option_plugin", FIRST_OPTION), "MMSOC_CACHE": str(root / "cache")}


def test_the_new_metric_is_listed_with_the_kind_it_applies_to(env):
    done = run(env, "mmsoc", "list", "metrics")
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("first_option_share "))
    assert "kinds: mcqa; computed by mmsoc itself" in line and "plugin first_option_plugin" in line
    accuracy = next(line for line in done.stdout.splitlines() if line.startswith("accuracy_norm "))
    assert "kinds: mcqa; computed by mmsoc itself" in accuracy


def test_desiq_eval_writes_it_for_every_condition_and_configuration(env, tmp_path):
    out = tmp_path / "run"
    done = run(env, "desiq", "eval", "--model", "random", "--data", "sample", "--inputs", "q+a", "--out", out)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    questions: dict[tuple[str, str], dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        questions[row["condition"], row["config"]][row["id"]].append(row)
    results = json.loads((out / "metrics.json").read_text())["results"]
    assert {(r["condition"], r["config"]) for r in results} == set(questions)
    for result in results:
        asked = questions[result["condition"], result["config"]].values()
        first = [all(row["chosen"] == 0 for row in rotations) for rotations in asked]
        assert result["first_option_share"] == pytest.approx(sum(first) / len(first), abs=1e-12)
        low, high = result["ci95_first"]
        assert low <= result["first_option_share"] <= high
        built_in = ["condition", "config", "accuracy", "chance", "n", "videos", "ci95", "success_rate"]
        metrics = [*built_in, "accuracy_norm", "ci95_norm", "first_option_share", "ci95_first"]
        assert list(result)[: len(metrics)] == metrics
        verdicts = {
            "position_consistency",
            "finding",
            "ci_adjusted",
            "p_adjusted",
            *(f"{k}_norm" for k in ("finding", "ci_adjusted", "p_adjusted")),
        }
        assert set(list(result)[len(metrics) :]) <= verdicts  # the run's verdicts follow its metrics
    shares = {r["condition"]: r["first_option_share"] for r in results if r["config"] == "A4"}
    assert 0.1 < shares["original"] < 0.4  # a random answer picks the first of 4 options a quarter of the time
