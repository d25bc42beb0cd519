"""The run loop and store: resume, refusal of a different config, crash repair, merge order, metrics."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, f1_score

from mmsoc.core.runfolder import METRICS, PREDICTIONS, RunFolder, RunFolderError
from mmsoc.models.backends.random_answers import RandomModel
from mmsoc.models.base import GenerationSettings
from mmsoc.runners.config import RunConfig
from mmsoc.runners.eval import run_eval
from mmsoc.runners.summary import summarize

TASKS = ("hate", "tagging")


class CountingRandom(RandomModel):
    """The random baseline, counting the requests it is asked to answer."""

    def __init__(self):
        self.asked = 0

    def generate(self, requests, settings):
        self.asked += len(requests)
        return super().generate(requests, settings)


def _config(**changes):
    fields = dict(model="random", tasks=TASKS, data="sample", prompt_version={t: "mmsoc-v1" for t in TASKS})
    settings = GenerationSettings(max_new_tokens=changes.pop("max_new_tokens", 256))
    fields.update(changes)
    return RunConfig.create(settings, (0, 1), **fields)


def _run(run_dir, backend, limit=5, **changes):
    return run_eval(
        _config(**changes),
        run_dir,
        lambda: backend,
        batch_size=3,
        limit=limit,
        progress=False,
        fast_metrics=True,
        threads=1,
    )


def test_rerun_resumes_and_skips_done_work(tmp_path):
    first = CountingRandom()
    metrics = _run(tmp_path, first)
    assert first.asked == 2 * 2 * 5
    runtime = {"processes": 1, "threads": 1, "batch_size": 3, "model": [None], "log_prompts": False}
    runtime |= {"items": 2 * 2 * 5, "failed_items": 0}  # the resumed run's items count too: all of them answered
    assert json.loads((tmp_path / "runtime.json").read_text()) == {**runtime, "predicted": [20], "batch_size_used": [3]}
    again = CountingRandom()
    assert _run(tmp_path, again) == metrics and again.asked == 0
    assert json.loads((tmp_path / "runtime.json").read_text()) == {
        **runtime,
        "predicted": [0],
        "batch_size_used": [None],
    }
    more = CountingRandom()
    _run(tmp_path, more, limit=7)
    assert more.asked == 2 * 2 * 2
    folder = RunFolder(tmp_path)
    keys = [folder.key(row) for row in folder.rows()]
    assert len(keys) == len(set(keys)) == 2 * 2 * 7
    saved = json.loads((tmp_path / "config.json").read_text())
    assert saved["seeds"] == [0, 1] and saved["adapter"] is None and "batch_size" not in saved


def test_different_config_is_refused(tmp_path):
    _run(tmp_path, RandomModel())
    with pytest.raises(RunFolderError, match="max_new_tokens: 256 there, 32 now"):
        _run(tmp_path, RandomModel(), max_new_tokens=32)


def test_partial_last_line_is_dropped_and_redone(tmp_path):
    reference = tmp_path / "whole"
    _run(reference, RandomModel())
    crashed = tmp_path / "crashed"
    _run(crashed, RandomModel(), limit=2)
    log = crashed / PREDICTIONS
    log.write_bytes(log.read_bytes() + b'{"task": "hate", "id": "100')  # killed mid-write
    _run(crashed, RandomModel())
    assert log.read_bytes() == (reference / PREDICTIONS).read_bytes()
    assert (crashed / METRICS).read_bytes() == (reference / METRICS).read_bytes()


def test_merge_of_rank_logs_restores_single_process_order(tmp_path):
    _run(tmp_path, RandomModel())
    single = (tmp_path / PREDICTIONS).read_bytes()
    lines = single.decode().splitlines(keepends=True)
    folder = RunFolder(tmp_path)
    order = [folder.key(json.loads(line)) for line in lines]
    (tmp_path / PREDICTIONS).write_text("".join(lines[:3]))
    (tmp_path / "predictions.rank0.jsonl").write_text("".join(reversed(lines[0::2])))
    (tmp_path / "predictions.rank1.jsonl").write_text("".join(lines[1::2]))
    folder.merge(order)
    assert (tmp_path / PREDICTIONS).read_bytes() == single
    assert not list(tmp_path.glob("predictions.rank*"))


def _row(seed, i, parsed, reference, valid=True, strict=True):
    return {
        "task": "hate",
        "id": str(i),
        "seed": seed,
        "prompt_version": "v",
        "raw": str(parsed),
        "parsed": parsed if valid else None,
        "valid": valid,
        "strict_valid": strict,
        "reference": reference,
    }


def test_metrics_are_means_over_seeds_of_per_seed_scores():
    refs = ["hateful", "not_hateful", "hateful", "not_hateful"]
    seed0 = ["hateful", "not_hateful", "not_hateful", "not_hateful"]
    seed1 = ["not_hateful", "hateful", "hateful", None]
    rows = [_row(0, i, p, r, strict=i != 0) for i, (p, r) in enumerate(zip(seed0, refs))]
    rows += [_row(1, i, p, r, valid=p is not None, strict=p is not None) for i, (p, r) in enumerate(zip(seed1, refs))]
    entry = summarize(rows, ["hate"], fast=True)["hate"]
    assert entry["n"] == 4
    assert entry["success_rate"] == pytest.approx(6 / 8) and entry["success_rate_lenient"] == pytest.approx(7 / 8)
    assert entry["metrics"]["accuracy"] == pytest.approx((3 / 4 + 1 / 4) / 2)
    assert entry["metrics_std"]["accuracy"] == pytest.approx(np.std([3 / 4, 1 / 4], ddof=1))
    wrong = [p if p is not None else "<invalid>" for p in seed1]  # an invalid answer is simply wrong
    f1 = [
        f1_score(refs, seed0, average="macro"),
        f1_score(refs, wrong, labels=["hateful", "not_hateful"], average="macro", zero_division=0),
    ]
    assert entry["metrics"]["macro_f1"] == pytest.approx(np.mean(f1))
    assert entry["per_seed"]["1"]["accuracy"] == pytest.approx(accuracy_score(refs, wrong))


def test_items_without_an_image_are_skipped_and_recorded(tmp_path):
    import shutil

    from mmsoc.tasks.data.sample import ensure_sample

    data = tmp_path / "data"
    shutil.copytree(ensure_sample() / "hateful_memes", data / "hateful_memes")
    (data / "hateful_memes/img/10042.png").unlink()
    config = RunConfig.create(
        GenerationSettings(greedy=True),
        None,
        model="random",
        tasks=("hate",),
        data=str(data),
        prompt_version={"hate": "mmsoc-v1"},
    )
    metrics = run_eval(
        config, tmp_path / "run", RandomModel, limit=4, progress=False, modalities=frozenset({"text", "image"})
    )
    assert metrics["hate"]["n"] == 3
    assert [row["id"] for row in RunFolder(tmp_path / "run").rows()] == ["10041", "10043", "10044"]
    problems = [json.loads(line) for line in (tmp_path / "run/problems.jsonl").read_text().splitlines()]
    assert [p["id"] for p in problems if "skipped" in p["problem"]] == ["10042"]
