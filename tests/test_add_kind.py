"""To add a task kind: one module declaring ``KIND`` (a subclass of ``TaskKind`` giving only what differs:
its name, parsing, training target, random answer and metric input), and ``mmsoc list kinds`` and
``mmsoc eval`` take it. The module also declares what makes the kind usable: a metric group that scores it,
a task of that kind and the dataset (with its sample) the task reads."""

from __future__ import annotations

import json

import pytest
from scratch_plugin import run, scratch_plugin

KEYWORD = '''
"""The keyword kind: the first word of the answer is the keyword the text is about."""

import json

import numpy as np

from mmsoc.core.records import Example
from mmsoc.metrics.registry import Metric, MetricGroup
from mmsoc.metrics.stats import mean_stat
from mmsoc.tasks.data.dataset import Dataset
from mmsoc.tasks.data.result import LoadResult
from mmsoc.tasks.kinds.base import INVALID, Parsed, TaskKind
from mmsoc.tasks.spec import TaskSpec


class Keyword(TaskKind):
    name = "keyword"
    text_only = True

    def parse(self, spec, raw, strict):
        words = raw.lower().split()
        return Parsed(words[0].strip(".,!"), True) if words else INVALID

    def target(self, spec, label):
        return str(label)

    def random_answer(self, spec, rng):
        return str(rng.choice(spec.labels))

    def metric_input(self, spec, predictions, references):
        return np.array([p == r for p, r in zip(predictions, references)])


KIND = Keyword()

GROUP = MetricGroup(
    "keyword_hits",
    ("keyword",),
    (Metric("keyword_accuracy", True, "share of items whose first answer word is the keyword"),),
    lambda hits: ({"keyword_accuracy": mean_stat(hits)}, {}),
)

TASKS = (
    TaskSpec("drinks/keyword", "DRINKS", "keyword", "Which drink is it about?", ("tea",),
             headline="keyword_accuracy", sources=("DRINKS",), suite="drinks"),
)

DRINKS = ("tea", "tea", "coffee", "tea")


def write_sample(folder, context):
    folder.mkdir(parents=True, exist_ok=True)
    for split, _ in context.splits:
        rows = [{"text": f"A cup of {drink}.", "drink": drink} for drink in DRINKS]
        (folder / f"{split}.jsonl").write_text("".join(json.dumps(row) + "\\n" for row in rows))


def load(spec, folder, split, limit=None, options=None):
    result = LoadResult()
    for n, line in enumerate((folder / f"{split}.jsonl").read_text().splitlines()[:limit]):
        row = json.loads(line)
        result.examples.append(Example(str(n), spec.id, row["text"], (), row["drink"], {}))
    return result


DATASET = Dataset("DRINKS", load, write_sample=write_sample, suite="drinks")
'''


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("keyword")
    return {**scratch_plugin(root, "keyword_plugin", KEYWORD), "MMSOC_CACHE": str(root / "cache")}


def test_the_new_kind_is_listed(env):
    done = run(env, "mmsoc", "list", "kinds")
    assert done.returncode == 0, done.stderr
    keyword = next(line for line in done.stdout.splitlines() if line.startswith("keyword "))
    assert "the first word of the answer is the keyword the text is about" in keyword
    assert "plugin keyword_plugin (keyword_plugin)" in keyword


def test_mmsoc_eval_scores_it(env, tmp_path):
    out = tmp_path / "run"
    done = run(
        env, "mmsoc", "eval", "--suite", "drinks", "--task", "all", "--model", "random", "--data", "sample",
        "--out", out, "--no-progress",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))["drinks/keyword"]
    # the one allowed answer is "tea": right for 3 of the 4 items (tea, tea, coffee, tea), under every seed
    assert metrics["n"] == 4
    assert metrics["metrics"] == {"keyword_accuracy": 0.75}
    assert metrics["success_rate"] == 1.0
