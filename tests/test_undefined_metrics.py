"""A metric with no value on the items (an AUC over one class) is said in words, never printed as None or NaN:
on the console, beside its null in the JSON files, and in reports."""

from __future__ import annotations

import json
import math

import pytest
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import roc_auc_score
from typer.testing import CliRunner

from mmsoc.cli import app
from mmsoc.runners.console import headline_text, values_line

ONE_CLASS = "auc undefined: the references hold one class"


def one_class_rows(n: int = 12) -> list[dict]:
    """Every reference is ``hateful``; a third of the answers are not."""
    return [
        {"id": str(i), "prediction": "not_hateful" if i % 3 == 0 else "hateful", "reference": "hateful"}
        for i in range(n)
    ]


def test_scikit_learn_has_no_auc_over_one_class():
    with pytest.warns(UndefinedMetricWarning, match="Only one class"):
        auc = roc_auc_score([1] * 12, [int(row["prediction"] == "hateful") for row in one_class_rows()])
    assert math.isnan(auc)


def test_score_says_why_the_auc_is_undefined(tmp_path):
    path = tmp_path / "preds.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in one_class_rows()), encoding="utf-8")
    result = CliRunner().invoke(
        app, ["score", "--task", "hate", "--predictions", str(path), "--out", str(tmp_path / "o"), "--bootstrap", "50"]
    )
    assert result.exit_code == 0, result.output
    line = next(line for line in result.stdout.splitlines() if line.startswith("accuracy="))
    assert line.endswith(f"n=12; {ONE_CLASS}") and "None" not in line and "nan" not in line
    metrics = json.loads((tmp_path / "o" / "metrics.json").read_text())
    assert metrics["auc"] is None and abs(metrics["accuracy"] - 8 / 12) < 1e-12
    info = json.loads((tmp_path / "o" / "score_info.json").read_text())
    assert info["info"]["undefined"] == {"auc": "the references hold one class"}


def test_console_lines_say_undefined_in_words():
    assert values_line({"r": None, "n": 3}, {"r": [float("nan"), float("nan")]}) == "n=3; r undefined"
    assert values_line({"a": 0.5}, {"a": [float("nan"), 0.7]}) == "a=0.5000 -"
    entry = {"metrics": {"auc": None}, "undefined": {"auc": "the references hold one class"}}
    assert headline_text("auc", entry) == ONE_CLASS


def test_eval_metrics_and_the_report_say_why(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    config = {"model": "m", "tasks": ["hate"], "seeds": [0], "greedy": True, "prompt_version": "mmsoc-v1"}
    (run / "config.json").write_text(json.dumps(config), encoding="utf-8")
    rows = [
        {"task": "hate", "id": r["id"], "seed": 0, "prompt_version": "mmsoc-v1", "raw": r["prediction"]}
        | {"parsed": r["prediction"], "valid": True, "reference": r["reference"]}
        for r in one_class_rows()
    ]
    (run / "predictions.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    from mmsoc.runners.summary import summarize

    entry = summarize(rows, ["hate"])["hate"]
    assert entry["metrics"]["auc"] is None and entry["undefined"] == {"auc": "the references hold one class"}
    result = CliRunner().invoke(app, ["report", str(run), "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    markdown = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "undefined: the references hold one class" in markdown and "nan" not in markdown.lower()
    (task,) = json.loads((tmp_path / "r" / "report.json").read_text())["tasks"]
    cell = next(iter(task["runs"].values()))["metrics"]["auc"]
    assert cell["value"] is None and cell["undefined"] == "the references hold one class"
