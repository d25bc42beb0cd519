"""`mmsoc score` on predictions made by other tools (JSONL and CSV)."""

from __future__ import annotations

import csv
import json

import jiwer
from sklearn.metrics import f1_score, hamming_loss
from sklearn.preprocessing import MultiLabelBinarizer
from typer.testing import CliRunner

from mmsoc.cli import app
from mmsoc.tasks.mmsoc.youtube2000 import YOUTUBE_TOPICS


def _score(*args: str):
    return CliRunner().invoke(app, ["score", *args])


def test_classification_jsonl_with_bad_rows(tmp_path):
    rows = [
        {"id": "1", "prediction": "hateful", "reference": "hateful"},
        {"id": "2", "prediction": None, "reference": "not_hateful"},
        {"id": "3", "prediction": "not_hateful", "reference": "not_hateful"},
        {"id": "3", "prediction": "hateful", "reference": "hateful"},
        {"id": "4", "prediction": "hateful", "reference": "unsure"},
    ]
    path = tmp_path / "preds.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n{not json\n")
    result = _score("--task", "hate", "--predictions", str(path), "--out", str(tmp_path / "out"), "--bootstrap", "50")
    assert result.exit_code == 0, result.output
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert set(metrics) == {"accuracy", "macro_precision", "macro_recall", "macro_f1", "auc", "n"}
    assert metrics["n"] == 3 and isinstance(metrics["n"], int)
    expected = f1_score(
        ["hateful", "not_hateful", "not_hateful"],
        ["hateful", "<invalid>", "not_hateful"],
        labels=["hateful", "not_hateful"],
        average="macro",
        zero_division=0,
    )
    assert abs(metrics["macro_f1"] - expected) < 1e-9
    info = json.loads((tmp_path / "out" / "score_info.json").read_text())
    skipped = info["skipped_rows"]
    assert len(skipped) == 3
    assert "line 4" in skipped[0] and "duplicate id" in skipped[0]
    assert "line 5" in skipped[1] and "field 'reference'" in skipped[1]
    assert "line 6" in skipped[2] and "invalid JSON" in skipped[2]
    low, high = info["intervals"]["values"]["macro_f1"]
    assert low <= high


def test_tagging_csv_with_comma_strings_and_unknown_tags(tmp_path):
    path = tmp_path / "tags.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "prediction", "reference"])
        writer.writerow(["a", "music, pop_music, not_a_topic", '["music"]'])
        writer.writerow(["b", "", "sport,tennis"])
    result = _score("--task", "tagging", "--predictions", str(path), "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text())
    binarizer = MultiLabelBinarizer(classes=list(YOUTUBE_TOPICS))
    truth = binarizer.fit_transform([["music"], ["sport", "tennis"]])
    pred = binarizer.transform([["music", "pop_music"], []])
    assert abs(metrics["hamming_loss"] - hamming_loss(truth, pred)) < 1e-12
    info = json.loads((tmp_path / "out" / "score_info.json").read_text())
    assert info["info"]["unknown_predicted_tags"] == 1


def test_ocr_and_single_item_auc_is_null(tmp_path):
    path = tmp_path / "ocr.jsonl"
    path.write_text(json.dumps({"id": "x", "prediction": '"Hello  World"', "reference": "hello world!"}) + "\n")
    assert _score("--task", "ocr", "--predictions", str(path), "--out", str(tmp_path / "o")).exit_code == 0
    metrics = json.loads((tmp_path / "o" / "metrics.json").read_text())
    assert abs(metrics["wer"] - jiwer.wer("hello world!", "hello world")) < 1e-12
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps({"id": "x", "prediction": "hateful", "reference": "hateful"}) + "\n")
    assert _score("--task", "hate", "--predictions", str(one), "--out", str(tmp_path / "h")).exit_code == 0
    assert json.loads((tmp_path / "h" / "metrics.json").read_text())["auc"] is None


def test_bad_file_is_a_clear_error(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("id,pred,reference\n1,a,b\n")
    result = _score("--task", "hate", "--predictions", str(path), "--out", str(tmp_path / "o"))
    assert result.exit_code == 2
    assert result.output.startswith("error: ") and "line 1" in result.output and "prediction" in result.output
    unknown = _score("--task", "nosuch", "--predictions", str(path), "--out", str(tmp_path / "o"))
    assert unknown.exit_code == 2 and unknown.output.strip().startswith("error: unknown task 'nosuch'")
    assert not (tmp_path / "o" / "metrics.json").exists()
