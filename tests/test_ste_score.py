"""``mmsoc score --format supertweeteval-lines``: one prediction per line, gold values from --data."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from mmsoc.cli import app
from mmsoc.tasks import get_task, kind_of
from mmsoc.tasks.data import load_examples
from mmsoc.tasks.data.sample import write_sample
from mmsoc.tasks.registry import short_name, task_ids


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return write_sample(tmp_path_factory.mktemp("ste") / "sample", suite="supertweeteval")


def _script_line(task: str, label) -> str:
    """The gold value written as a prediction line in the format the official scripts read."""
    if get_task(task).kind == "ste_ner":
        from seqeval.metrics.sequence_labeling import get_entities

        return ",".join(f"{' '.join(label['tokens'][s : e + 1])}:{k}" for k, s, e in get_entities(label["tags"]))
    if get_task(task).kind == "ste_emoji":
        return ",".join([label, "x", "y", "z", "w"])
    return kind_of(task).target(get_task(task), label)


def _score(*args: str):
    return CliRunner().invoke(app, ["score", "--format", "supertweeteval-lines", "--bootstrap", "10", *args])


def test_a_folder_of_gold_predictions_scores_perfectly(data, tmp_path):
    folder = tmp_path / "preds"
    folder.mkdir()
    for task in task_ids("supertweeteval"):
        lines = [_script_line(task, e.label) for e in load_examples(task, str(data), "test").examples]
        (folder / f"flan-t5-base-{short_name(task).replace('_', '-')}.txt").write_text("\n".join(lines) + "\n")
    result = _score("--predictions", str(folder), "--data", str(data), "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    metrics = json.loads((tmp_path / "out/metrics.json").read_text())
    assert list(metrics) == [short_name(t) for t in task_ids("supertweeteval")]
    for name, entry in metrics.items():
        spec = get_task(f"supertweeteval/{name}")
        expected = 1.0
        if spec.kind == "ste_multilabel":  # scikit-learn counts labels absent from this small sample as 0
            present = {label for e in load_examples(spec.id, str(data), "test").examples for label in e.label}
            expected = len(present) / len(spec.labels)
        if spec.kind == "ste_hate":  # ... and hate classes absent from it (labels=range(7)) likewise
            present = {e.label for e in load_examples(spec.id, str(data), "test").examples} - {"not_hate"}
            expected = (1 + len(present) / 7) / 2
        # METEOR's fragmentation penalty keeps even an identical question just below 1
        assert entry[spec.headline] == pytest.approx(expected, abs=0.005 if spec.kind == "ste_qg" else 1e-9), name
        assert entry["n"] == 6
    averages = json.loads((tmp_path / "out/averages.json").read_text())
    assert averages["complete"] and averages["clusters"]["generation"] == pytest.approx(1.0, abs=0.005)
    assert averages["unified"] == pytest.approx(
        sum(e[get_task(f"supertweeteval/{n}").headline] for n, e in metrics.items()) / 12
    )


def test_one_file_its_task_from_the_name_or_task_and_line_counts(data, tmp_path):
    examples = load_examples("supertweeteval/tweet_hate", str(data), "test").examples
    path = tmp_path / "tweet-hate.txt"
    path.write_text("\n".join([examples[0].label.replace("_", " ")] + [e.label for e in examples[1:]]))
    official = _score("--predictions", str(path), "--data", str(data), "--out", str(tmp_path / "a"))
    assert official.exit_code == 0, official.output
    lenient = _score(
        "--predictions", str(path), "--data", str(data), "--out", str(tmp_path / "b"), "--parse", "lenient"
    )
    assert lenient.exit_code == 0, lenient.output
    a = json.loads((tmp_path / "a/metrics.json").read_text())["tweet_hate"]
    b = json.loads((tmp_path / "b/metrics.json").read_text())["tweet_hate"]
    assert b["combined_f1"] > a["combined_f1"]  # the script cannot read "hate race", the lenient reader can
    other = tmp_path / "predictions.txt"
    other.write_text(path.read_text())
    unnamed = _score("--predictions", str(other), "--data", str(data), "--out", str(tmp_path / "c"))
    assert unnamed.exit_code == 2 and "give --task" in unnamed.output
    named = _score(
        "--predictions", str(other), "--task", "tweet_hate", "--data", str(data), "--out", str(tmp_path / "c")
    )
    assert named.exit_code == 0
    short = tmp_path / "tweet-qa.txt"
    short.write_text("a\nb\n\n")
    refused = _score("--predictions", str(short), "--data", str(data), "--out", str(tmp_path / "d"))
    assert refused.exit_code == 2 and "4 lines for 6 test items of tweet_qa" in refused.output
    missing = _score("--predictions", str(short), "--out", str(tmp_path / "d"))
    assert missing.exit_code == 2 and "--data" in missing.output
