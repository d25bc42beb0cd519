"""The dataset contract: every task's sources are registered datasets, and a task on a new dataset is
one module dropped into the suite package (loaded, listed and written into the sample, with the other
datasets' sample bytes unchanged)."""

import hashlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

from mmsoc.tasks import get_task, task_ids
from mmsoc.tasks.data.registry import DATASETS, suite_datasets
from mmsoc.tasks.registry import SUITES

TOY_MODULE = '''
"""A toy dataset with one task, declared the way every dataset module of a suite is."""

from mmsoc.core.io import read_jsonl, write_jsonl
from mmsoc.core.records import Example
from mmsoc.tasks.data.dataset import Dataset
from mmsoc.tasks.data.rows import collect_examples, existing_file, require
from mmsoc.tasks.spec import TaskSpec

FOLDER = "toy"
TASKS = (TaskSpec("toy_sentiment", "Toy", "classification", "Positive or negative?", ("positive", "negative"),
                  sources=(FOLDER,), order=99),)


def load(spec, root, split, limit=None, options=None):
    path = existing_file(root, f"{split}.jsonl")

    def example(line, row, problems):
        return Example(str(require(row, "id", path, line)), spec.id, row["text"], (), row["label"], {"split": split})

    return collect_examples(read_jsonl(path), limit, example)


def write_sample(root, context):
    for split, n in context.splits:
        rows = [{"id": f"{split}{i}", "text": context.rng.choice(("good", "fine")) if i % 2 else "bad",
                 "label": "positive" if i % 2 else "negative"} for i in range(n)]
        write_jsonl(root / f"{split}.jsonl", rows)


DATASET = Dataset(FOLDER, load, write_sample=write_sample)
'''

RUN = """
import json, sys
import mmsoc.tasks.mmsoc as suite
suite.__path__.append(sys.argv[1])
from mmsoc.tasks import task_ids
from mmsoc.tasks.data import load_examples
from mmsoc.tasks.data.sample import write_sample
write_sample(sys.argv[2])
test = load_examples("toy_sentiment", sys.argv[2], "test")
print(json.dumps({"tasks": list(task_ids()), "labels": [e.label for e in test.examples][:4], "n": len(test.examples)}))
"""


def _digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_every_source_is_a_registered_dataset_and_every_dataset_serves_a_task():
    sources = {name for task in task_ids() for name in get_task(task).sources}
    every_source = {name for suite in SUITES for task in task_ids(suite) for name in get_task(task).sources}
    assert every_source == set(DATASETS.names())
    assert sources == {d.name for d in suite_datasets("mmsoc")}
    assert get_task("ocr").sources == ("hateful_memes", "memotion")
    assert [d.name for d in suite_datasets("mmsoc")] == [
        "hateful_memes",
        "descriptions",
        "memotion",
        "fakenewsnet",
        "youtube2000",
    ]
    for dataset in suite_datasets("mmsoc"):
        if dataset.hub is not None:
            assert set(dataset.hub.splits) <= {"train", "dev", "test"}, dataset.name


def test_a_task_on_a_new_dataset_is_one_module(tmp_path):
    from mmsoc.tasks.data.sample import write_sample

    plugin = tmp_path / "plugin"
    plugin.mkdir()
    (plugin / "toy.py").write_text(textwrap.dedent(TOY_MODULE))
    with_toy = tmp_path / "with_toy"
    run = subprocess.run(
        [sys.executable, "-c", RUN, str(plugin), str(with_toy)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert found["tasks"][-1] == "toy_sentiment" and found["n"] == 24
    assert found["labels"] == ["negative", "positive", "negative", "positive"]
    plain = write_sample(tmp_path / "plain")
    toy = {name: digest for name, digest in _digest(with_toy).items() if not name.startswith("toy/")}
    assert toy == _digest(plain) and (with_toy / "toy/train.jsonl").is_file()
