"""``mmsoc score --format socket-tsv``: the published SocKET prediction files re-scored to the official
all_scores values, and hand-made TSVs with every type, missing answers, quoted multi-line fields and bad rows."""

from __future__ import annotations

import ast
import csv
import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import precision_recall_fscore_support
from socket_data import ALL_SCORES, PREDICTIONS, PROMPTS, needs_socket_files
from typer.testing import CliRunner

from mmsoc.cli import app
from mmsoc.tasks.registry import get_task
from mmsoc.tasks.socket.data import example
from mmsoc.tasks.socket.prompting import socket_prompt


def _score(*args: str):
    return CliRunner().invoke(app, ["score", "--format", "socket-tsv", "--bootstrap", "20", *args])


@needs_socket_files
def test_published_predictions_rescored_to_all_scores():
    official = pd.read_csv(ALL_SCORES, sep="\t")
    files = sorted(PREDICTIONS.glob("*_res.tsv"))
    assert len(files) == 4
    compared = 0
    for path in files:
        model = path.name.split("_res")[0]
        rows = official[official.model == model]
        scored = _scored(path)
        for row in rows.itertuples():
            assert scored[row.task][row.metric] == pytest.approx(row.score, abs=1e-9), (model, row.task, row.metric)
            assert scored[row.task]["type"] == row.task_type
            compared += 1
    assert compared == len(official) == 24


def _scored(path, *extra: str) -> dict:
    import tempfile

    with tempfile.TemporaryDirectory() as out:
        result = _score("--predictions", str(path), "--out", out, *extra)
        assert result.exit_code == 0, result.output
        return json.loads(open(f"{out}/metrics.json").read())


@needs_socket_files
def test_published_predictions_with_penalize_missing_equal_sklearn_on_the_other_class():
    path = PREDICTIONS / "meta-llama-Meta-Llama-3-8B_res.tsv"
    scored = _scored(path, "--penalize-missing")
    frame = pd.read_csv(path, sep="\t")
    for task, options in (("sarc", ["yes", "no"]), ("tweet_irony", ["no", "yes"]), ("humor-pairs", ["yes", "no"])):
        part = frame[frame.task == task]
        truth = part.label.astype(int).to_numpy()
        pred = [
            next(
                (
                    i
                    for i, o in enumerate(options)
                    if isinstance(a, str)
                    and (
                        a.lower().strip().startswith(o)
                        or (o == "yes" and a.lower().strip().startswith("true"))
                        or (o == "no" and a.lower().strip().startswith("false"))
                    )
                ),
                None,
            )
            for a in part.generated_text
        ]
        penalized = [p if p is not None else 1 - t for p, t in zip(pred, truth)]  # binary: the only wrong class
        expected = precision_recall_fscore_support(truth, penalized, average="macro", zero_division=0)[2]
        assert scored[task]["f1"] == pytest.approx(expected, abs=1e-12), task
    assert scored["sarc"]["f1"] != pytest.approx(0.5280887767490974)  # differs from the dropped default


@needs_socket_files
def test_official_prompt_wrapper_reproduces_the_published_prompts():
    prompts = pd.read_csv(PROMPTS)
    for _, row in prompts.iterrows():
        spec = get_task(f"socket/{row.task}")
        assert spec.prompt == row.question
        options = ast.literal_eval(row.options) if isinstance(row.options, str) else []
        assert [option for option, _ in spec.answers] == options
    for name in ("tiiuae-falcon-7b_res.tsv", "bigscience-bloom-7b1_res.tsv"):
        frame = pd.read_csv(PREDICTIONS / name, sep="\t", dtype=str, keep_default_na=False)
        for i, row in enumerate(frame.itertuples()):
            spec = get_task(f"socket/{row.task}")
            assert socket_prompt(spec, example(spec, str(i), row.text, row.label, "test"), spec.prompt) == row.prompt


def _write_tsv(path, rows) -> None:
    pd.DataFrame(rows, columns=["text", "label", "prompt", "task", "generated_text"]).to_csv(
        path, sep="\t", index=False
    )


def test_every_type_missing_answers_and_bad_rows(tmp_path):
    rows = [
        ["line one\nline two", 0, "p", "sarc", "Yes"],
        ["b", 1, "p", "sarc", "None"],  # pandas reads "None" as missing
        ["c", "1.0", "p", "sarc", "No, not at all"],
        ["d", 0, "p", "sarc", ""],  # empty: missing
        ["e", 1, "p", "sarc", "Yes"],
        ["f", 3.4, "p", "emobank#valence", "3.5"],
        ["g", 1.2, "p", "emobank#valence", "about 1 or 2"],
        ["h", 2.0, "p", "emobank#valence", "2"],
        ["i", 4.1, "p", "emobank#valence", "4.0"],
        ["you silly fool", "{'toxic': ['silly fool']}", "p", "toxic-span", '"silly fool"'],
        ["fine day", "{'toxic': []}", "p", "toxic-span", "nothing"],
        ["x", 7, "p", "sarc", "Yes"],  # no class 7: skipped and named
        ["y", 0, "p", "not-a-task", "Yes"],  # unknown task: skipped and named
    ]
    path = tmp_path / "model_res.tsv"
    _write_tsv(path, rows)
    result = _score("--predictions", str(path), "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    metrics = json.loads((tmp_path / "out/metrics.json").read_text())
    assert list(metrics) == ["emobank#valence", "sarc", "toxic-span"]
    sarc = metrics["sarc"]
    assert sarc["type"] == "CLS" and sarc["n"] == 5 and sarc["hit_rate"] == pytest.approx(3 / 5)
    # read: (0 -> Yes=0), (1 -> No=1), (1 -> Yes=0): macro-F1 over classes 0, 1
    assert sarc["f1"] == pytest.approx(precision_recall_fscore_support([0, 1, 1], [0, 1, 0], average="macro")[2])
    valence = metrics["emobank#valence"]
    assert set(valence) == {"type", "corr_original", "corr_score", "hit_rate", "n"} and valence["hit_rate"] == 0.75
    assert valence["corr_original"] == pytest.approx(np.corrcoef([3.5, 2.0, 4.0], [3.4, 2.0, 4.1])[0, 1])
    span = metrics["toxic-span"]
    # "nothing" snaps to "in" (2 characters, dropped): missing, and right, as the item has no gold span
    assert span["f1"] == pytest.approx(1.0) and span["hit_rate"] == pytest.approx(0.5)
    info = json.loads((tmp_path / "out/score_info.json").read_text())
    skipped = [line for task in info["tasks"].values() for line in task["skipped_rows"]]
    assert len(skipped) == 2 and "line 14" in skipped[0] and "field 'label'" in skipped[0]
    assert "not-a-task" in skipped[1] and "line 15" in skipped[1]
    averages = json.loads((tmp_path / "out/averages.json").read_text())
    assert averages["types"]["REG"] == pytest.approx(valence["corr_score"]) and averages["tasks"] == 3


def test_lenient_parser_and_llama2_file_names(tmp_path):
    rows = [
        ["q", 5, "p", "questionintimacy", "Not intimate at all"],
        ["q", 4, "p", "questionintimacy", "Not intimate"],
        ["q", 0, "p", "questionintimacy", "Very intimate"],
    ]
    path = tmp_path / "a_res.tsv"
    _write_tsv(path, rows)
    official = _scored(path)["questionintimacy"]
    lenient = _scored(path, "--parse", "lenient")["questionintimacy"]
    assert official["f1"] == pytest.approx(
        precision_recall_fscore_support([5, 4, 0], [4, 4, 0], average="macro", zero_division=0)[2]
    )
    assert lenient["f1"] == pytest.approx(1.0)
    llama = tmp_path / "meta-llama2-7b_res.tsv"
    _write_tsv(llama, [["s", 0, "p", "sarc", "### Response: Yes"], ["s", 1, "p", "sarc", "Response: No"]])
    assert _scored(llama)["sarc"]["hit_rate"] == 1.0
    other = tmp_path / "other-model_res.tsv"
    _write_tsv(other, [["s", 0, "p", "sarc", "### Response: Yes"], ["s", 1, "p", "sarc", "Response: No"]])
    assert _scored(other)["sarc"]["hit_rate"] == 0.0


def test_a_file_without_the_columns_is_refused_in_one_line(tmp_path):
    path = tmp_path / "bad_res.tsv"
    with open(path, "w", newline="") as handle:
        csv.writer(handle, delimiter="\t").writerows([["text", "task"], ["a", "sarc"]])
    result = _score("--predictions", str(path), "--out", str(tmp_path / "out"))
    assert result.exit_code == 2 and "lacks column(s) label, prompt, generated_text" in result.output
    assert not (tmp_path / "out").exists()


def test_one_task_of_a_file_and_options_a_format_does_not_apply(tmp_path):
    path = tmp_path / "m_res.tsv"
    _write_tsv(path, [["s", 0, "p", "sarc", "Yes"], ["h", 1, "p", "hypo-l", "No"]])
    assert list(_scored(path, "--task", "hypo-l")) == ["hypo-l"]
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "1", "prediction": "Yes", "reference": "sarcastic"}) + "\n")
    refused = CliRunner().invoke(
        app,
        [
            "score",
            "--task",
            "socket/sarc",
            "--predictions",
            str(rows),
            "--out",
            str(tmp_path / "o"),
            "--penalize-missing",
        ],
    )
    assert refused.exit_code == 2 and "--penalize-missing does not apply to --format rows" in refused.output
    plain = CliRunner().invoke(
        app,
        [
            "score",
            "--task",
            "socket/sarc",
            "--predictions",
            str(rows),
            "--out",
            str(tmp_path / "o"),
            "--bootstrap",
            "0",
        ],
    )
    assert plain.exit_code == 0, plain.output
    flat = json.loads((tmp_path / "o/metrics.json").read_text())
    assert flat["f1"] == 1.0 and flat["hit_rate"] == 1.0 and flat["n"] == 1
