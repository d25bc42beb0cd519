"""The evaluation loop's batching: length-sorted windows, the next batch prepared while one generates,
bad input found while preparing, torch threads, and what a run imports."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import torch

from mmsoc.core.records import Example
from mmsoc.core.runfolder import RunFolder
from mmsoc.core.threads import MAX_DEFAULT_THREADS, default_threads
from mmsoc.models.backends.hf import HFModel
from mmsoc.models.backends.random_answers import RandomModel
from mmsoc.models.base import GenerationSettings, Image, Prepares, Request, Text
from mmsoc.runners.config import RunConfig
from mmsoc.runners.eval import WorkItem, by_length, plan, resolve_prompts, run_eval
from mmsoc.tasks.data.sample import ensure_sample

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1"}


def _item(task: str, i: int, text: str, images: int = 1) -> WorkItem:
    parts = (*[Image(f"{i}-{k}.png") for k in range(images)], Text(text))
    return WorkItem(Example(str(i), task), Request(task, str(i), parts), "v1")


def test_work_is_sorted_longest_first_within_windows_and_never_across_tasks():
    items = [
        _item("a", 0, "xx"),
        _item("a", 1, "xxxx"),
        _item("a", 2, "x"),
        _item("a", 3, "xxx"),
        _item("a", 4, "x", images=2),
        _item("b", 5, "x"),
        _item("b", 6, "xxxxx"),
    ]
    order = [w.example.id for w in by_length(items, window=3)]
    # windows: a[0:3], a[3:5] (the task ends), b[5:7]; more media first, then longer text; ties keep their order
    assert order == ["1", "0", "2", "4", "3", "6", "5"]
    same = [_item("a", i, "same") for i in range(5)]
    assert by_length(same, window=4) == same


def _config(tasks=("hate",), greedy=True, data="sample"):
    return RunConfig.create(
        GenerationSettings(greedy=greedy, max_new_tokens=6),
        None if greedy else (0,),
        model="m",
        tasks=tasks,
        data=data,
        prompt_version={t: "mmsoc-v1" for t in tasks},
    )


class OverlapCheckingModel(RandomModel):
    """The random baseline split into prepare and generate: generating batch k waits until batch k+1 is
    being prepared on another thread, so the run only finishes if the two overlap."""

    def __init__(self, batches: int):
        self.batches = batches
        self.started = [threading.Event() for _ in range(batches)]
        self.threads: set[int] = set()
        self.prepared = self.generated = 0

    def prepare(self, requests):
        self.threads.add(threading.get_ident())
        self.started[self.prepared].set()  # batches are prepared in order
        self.prepared += 1
        return tuple(r.id for r in requests)

    def generate(self, requests, settings, prepared=None):
        assert prepared == tuple(r.id for r in requests)
        if self.generated + 1 < self.batches:
            assert self.started[self.generated + 1].wait(timeout=30), "batch k+1 was not prepared during batch k"
        self.generated += 1
        return super().generate(requests, settings)


def test_the_next_batch_is_prepared_on_another_thread_while_one_generates(tmp_path):
    model = OverlapCheckingModel(batches=3)
    assert isinstance(model, Prepares) and not isinstance(RandomModel(), Prepares)
    metrics = run_eval(
        _config(), tmp_path / "run", lambda: model, batch_size=2, limit=6, progress=False, fast_metrics=True, threads=1
    )
    assert model.generated == 3 and model.threads and threading.get_ident() not in model.threads
    run_eval(
        _config(), tmp_path / "plain", RandomModel, batch_size=6, limit=6, progress=False, fast_metrics=True, threads=1
    )
    assert (tmp_path / "run/predictions.jsonl").read_bytes() == (tmp_path / "plain/predictions.jsonl").read_bytes()
    assert metrics["hate"]["n"] == 6


def test_an_image_gone_after_planning_is_recorded_and_the_rest_of_its_batch_predicted(tiny_llava, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(ensure_sample() / "hateful_memes", data / "hateful_memes")
    config = _config(data=str(data))

    def load_then_lose_an_image() -> HFModel:
        (data / "hateful_memes/img/10042.png").unlink()
        return HFModel(str(tiny_llava), device="cpu")

    run_eval(
        config,
        tmp_path / "damaged",
        load_then_lose_an_image,
        batch_size=4,
        limit=4,
        progress=False,
        fast_metrics=True,
        modalities=frozenset({"text", "image"}),
        threads=1,
    )
    shutil.copy(ensure_sample() / "hateful_memes/img/10042.png", data / "hateful_memes/img/10042.png")
    run_eval(
        config,
        tmp_path / "whole",
        lambda: HFModel(str(tiny_llava), device="cpu"),
        batch_size=1,
        limit=4,
        progress=False,
        fast_metrics=True,
        modalities=frozenset({"text", "image"}),
        threads=1,
    )
    damaged = RunFolder(tmp_path / "damaged").rows()
    assert [r for r in RunFolder(tmp_path / "whole").rows() if r["id"] != "10042"] == damaged
    assert [r["id"] for r in damaged] == ["10041", "10043", "10044"]
    problems = [json.loads(line) for line in (tmp_path / "damaged/problems.jsonl").read_text().splitlines()]
    assert [(p["id"], p["problem"].split(":")[0]) for p in problems] == [("10042", "generation failed")]


def test_predictions_do_not_depend_on_batch_size_when_prompt_lengths_differ(tiny_llava, tmp_path):
    config = _config(tasks=("misinfo_politifact", "tagging"))
    work, _ = plan(config, resolve_prompts(config.tasks), limit=5)
    assert len({len(w.request.prompt) for w in work}) > 1 and by_length(work, 8) != work
    logs = []
    for size in (1, 3, 8):
        run_eval(
            config,
            tmp_path / str(size),
            lambda: HFModel(str(tiny_llava), device="cpu"),
            batch_size=size,
            limit=5,
            progress=False,
            fast_metrics=True,
            modalities=frozenset({"text", "image"}),
            threads=1,
        )
        logs.append((tmp_path / str(size) / "predictions.jsonl").read_bytes())
    assert len(logs[0].splitlines()) == len(work) == 10
    assert logs[1] == logs[0] and logs[2] == logs[0]


class ThreadRecordingModel(RandomModel):
    def generate(self, requests, settings):
        self.threads = torch.get_num_threads()
        return super().generate(requests, settings)


def test_threads_are_applied_to_torch_and_recorded(tmp_path):
    before = torch.get_num_threads()
    model = ThreadRecordingModel()
    try:
        run_eval(_config(), tmp_path, lambda: model, limit=2, progress=False, fast_metrics=True, threads=1)
    finally:
        torch.set_num_threads(before)
    assert model.threads == 1
    assert json.loads((tmp_path / "runtime.json").read_text())["threads"] == 1


def test_default_threads_leave_the_rest_of_a_shared_machine(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert default_threads() == 3  # the user's choice
    monkeypatch.delenv("OMP_NUM_THREADS")
    for name in ("LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE"):
        monkeypatch.delenv(name, raising=False)
    alone = default_threads()
    assert 1 <= alone <= min(MAX_DEFAULT_THREADS, len(os.sched_getaffinity(0)))
    monkeypatch.setenv("WORLD_SIZE", "64")
    monkeypatch.setenv("LOCAL_WORLD_SIZE", str(64 * len(os.sched_getaffinity(0))))
    assert default_threads() == 1  # many processes of one run on this machine share its CPUs


def _loaded_after(*args: str) -> set[str]:
    """Top-level packages loaded by ``python -m mmsoc ARGS`` (run in a fresh interpreter)."""
    code = (
        "import runpy, sys\nsys.argv = ['mmsoc', *sys.argv[1:]]\ntry:\n"
        "    runpy.run_module('mmsoc', run_name='__main__')\nexcept SystemExit as end:\n"
        "    assert not end.code, end.code\n"
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)\n"
    )
    child = subprocess.run(
        [sys.executable, "-c", code, *args], cwd=REPO, env=ENV, capture_output=True, text=True, timeout=600
    )
    assert child.returncode == 0, child.stderr[-3000:]
    return set(child.stderr.strip().splitlines()[-1].split())


TEXT_METRICS = {
    "sklearn",
    "scipy",
    "nltk",
    "jiwer",
    "rouge_score",
    "rouge",
    "sacrebleu",
    "bert_score",
    "sentence_transformers",
    "evaluate",
}


@pytest.mark.slow
def test_a_run_imports_only_what_it_needs(tiny_llava, tmp_path):
    assert not _loaded_after("--help") & ({"torch", "transformers", "accelerate", "PIL"} | TEXT_METRICS)
    run = ["eval", "--task", "hate", "--greedy", "--limit", "1", "--fast-metrics", "--no-progress"]
    random = _loaded_after(*run, "--model", "random", "--out", str(tmp_path / "random"))
    assert not random & ({"torch", "transformers", "accelerate", "torchvision"} | TEXT_METRICS)
    hf = _loaded_after(*run, "--model", str(tiny_llava), "--max-new-tokens", "4", "--out", str(tmp_path / "hf"))
    assert {"torch", "transformers"} <= hf and not hf & (TEXT_METRICS - {"scipy"})  # transformers loads scipy
