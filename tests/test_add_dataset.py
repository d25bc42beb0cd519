"""To add a dataset whose items are the rows of a table: one module declaring the table (which column is
the id, the text, the image and the label, and the label map), the ``DATASET`` reading it and a task of an
existing kind; ``mmsoc data check`` and ``mmsoc eval`` take it."""

from __future__ import annotations

import json

import pytest
from PIL import Image
from scratch_plugin import run, scratch_plugin

FUNNY = '''
"""Funny memes: ``DIR/funny/{split}.jsonl`` with rows ``{id, picture, caption, funny}`` (yes or no),
the pictures relative to ``DIR/funny``."""

from mmsoc.tasks.data.dataset import Dataset
from mmsoc.tasks.data.table import Table, TableReader, split_file_loader
from mmsoc.tasks.spec import TaskSpec

TASKS = (
    TaskSpec("funny", "FunnyMemes", "classification", "Is this meme funny? Answer 'Yes' or 'No'.",
             ("funny", "not_funny"), answers=(("yes", "funny"), ("no", "not_funny")), sources=("funny",)),
)
READ = TableReader({"funny": Table("FunnyMemes", "picture", "funny", {"yes": "funny", "no": "not_funny"},
                                         text=("caption",))})
DATASET = Dataset("funny", split_file_loader(READ))
'''

ROWS = (
    {"id": "m1", "picture": "img/m1.png", "caption": "when the coffee kicks in", "funny": "yes"},
    {"id": "m2", "picture": "img/m2.png", "caption": "quarterly report", "funny": "no"},
    {"id": "m3", "picture": "img/m3.png", "caption": "cat in a box", "funny": "Yes"},
    {"id": "m4", "picture": "img/lost.png", "caption": "monday again", "funny": "no"},
    {"id": "m5", "picture": "../outside.png", "caption": "escape", "funny": "yes"},
)
"""Three memes with a picture, one whose picture is missing (kept, a problem) and one whose path leads
out of the data folder (left out, a problem): 4 items and 2 problems."""


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], object]:
    root = tmp_path_factory.mktemp("funny")
    env = {**scratch_plugin(root / "plugin", "funny_plugin", FUNNY), "MMSOC_CACHE": str(root / "cache")}
    data = root / "data"
    (data / "funny" / "img").mkdir(parents=True)
    for name, color in (("m1", "yellow"), ("m2", "gray"), ("m3", "orange")):
        Image.new("RGB", (160, 160), color).save(data / "funny" / "img" / f"{name}.png")
    Image.new("RGB", (160, 160), "red").save(data / "outside.png")
    (data / "funny" / "test.jsonl").write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    return env, data


def test_data_check_counts_items_and_problems(setup):
    env, data = setup
    done = run(env, "mmsoc", "data", "check", "--data", data, "--task", "funny")
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if " funny " in line)
    assert line.split()[:6] == ["│", "funny", "│", "4", "│", "2"]
    assert "line 4: item 'm4', field 'picture': image not found" in line


def test_mmsoc_eval_runs_on_it(setup, tmp_path):
    env, data = setup
    out = tmp_path / "run"
    done = run(
        env, "mmsoc", "eval", "--task", "funny", "--model", "random", "--data", data,
        "--out", out, "--no-progress",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))["funny"]
    assert metrics["n"] == 4
    predictions = [json.loads(line) for line in (out / "predictions.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {(p["id"], p["reference"]) for p in predictions} == {
        ("m1", "funny"), ("m2", "not_funny"), ("m3", "funny"), ("m4", "not_funny")
    }  # fmt: skip
