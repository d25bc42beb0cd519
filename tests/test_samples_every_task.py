"""Samples never break: every registered task of every suite loads its embedded sample into Examples, and a
task whose dataset writes no sample is left out of ``--data sample`` with a one-line note (named alone, it is
refused in one line) instead of failing on a missing file."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from mmsoc.cli import app
from mmsoc.core.io import UsageError
from mmsoc.core.plugins import BUILT_IN
from mmsoc.core.records import Example
from mmsoc.tasks.data import load_examples
from mmsoc.tasks.data.dataset import Dataset
from mmsoc.tasks.data.load import tasks_for_data
from mmsoc.tasks.data.registry import DATASETS
from mmsoc.tasks.data.sample import N_TEST, N_TRAIN
from mmsoc.tasks.registry import SUITES, TASKS, get_task, task_ids
from mmsoc.tasks.socket.sample import N_ITEMS as SOCKET_ITEMS
from mmsoc.tasks.spec import TaskSpec
from mmsoc.tasks.supertweeteval.sample import N_ITEMS as STE_ITEMS

SIZES = {"mmsoc": {"train": N_TRAIN, "test": N_TEST}, "socket": dict.fromkeys(("train", "test"), SOCKET_ITEMS)}
SIZES["supertweeteval"] = dict.fromkeys(("train", "test"), STE_ITEMS)
"""Items per dataset and split that each suite's sample writers write."""


@pytest.fixture(scope="module", autouse=True)
def fresh_cache(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MMSOC_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield


@pytest.mark.parametrize("suite", list(SUITES))
def test_every_task_loads_its_sample(suite):
    assert task_ids(suite)
    for task in task_ids(suite):
        assert tasks_for_data((task,), "sample") == ((task,), None)
        for split in ("train", "test"):
            loaded = load_examples(task, "sample", split)
            assert loaded.problems == [], task
            assert loaded.examples and all(isinstance(e, Example) and e.task == task for e in loaded.examples)
            if suite in SIZES:
                assert len(loaded.examples) == SIZES[suite][split] * len(get_task(task).sources), (task, split)


def _never_loaded(*_args):
    raise AssertionError("a dataset without a sample is never loaded from the sample")


@pytest.fixture
def task_without_sample(monkeypatch):
    """A task ``meme_tone`` of the MM-Soc suite on a dataset that writes no sample, registered for one test."""
    dataset = Dataset("meme_tone", _never_loaded)
    spec = TaskSpec("meme_tone", "meme_tone", "classification", "Tone?", ("warm", "cold"), sources=("meme_tone",))
    for registry, entry in ((DATASETS, dataset), (TASKS, spec)):
        registry.names()  # discovered first, so that the registered entry is the only addition
        monkeypatch.setitem(registry._entries, "meme_tone", entry)
        monkeypatch.setitem(registry._origins, "meme_tone", BUILT_IN)
    return spec


def test_a_task_without_a_sample_is_left_out_with_a_note(task_without_sample):
    every = task_ids()
    assert every[-1] == "meme_tone"
    kept, note = tasks_for_data(every, "sample")
    assert kept == every[:-1]
    assert note == (
        "note: --data sample: left out 1 task(s) without an embedded sample: meme_tone (dataset meme_tone "
        "writes no sample)"
    )
    assert tasks_for_data(every, "data/mmsoc") == (every, None)  # a data folder may well have it
    assert load_examples("hate", "sample", "test").examples  # the others' sample is unchanged


def test_a_task_without_a_sample_named_alone_is_refused_in_one_line(task_without_sample, tmp_path):
    with pytest.raises(UsageError, match=r"--data sample: no embedded sample for meme_tone \(dataset meme_tone"):
        tasks_for_data(("meme_tone",), "sample")
    with pytest.raises(UsageError, match=r"task 'meme_tone' has no embedded sample \(dataset meme_tone writes none\)"):
        load_examples("meme_tone", "sample")
    args = ["eval", "--task", "meme_tone", "--data", "sample", "--model", "text-baseline", "--out", tmp_path / "r"]
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 2
    assert result.output.startswith("error: --data sample: no embedded sample for meme_tone")
