"""Hostile and careless values where they enter: NaN and infinities in predictions and gold values, numbers
and dicts where text is expected, ids that differ only in spelling, and JSON that must stay standard."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from scipy.stats import ConstantInputWarning, spearmanr
from typer.testing import CliRunner

from mmsoc.cli import app


def _strict_json(path: Path):
    """The file parsed as standard JSON: any NaN / Infinity token fails the test."""

    def refuse(token: str):
        raise AssertionError(f"{path.name} holds the non-standard JSON token {token}")

    return json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)


def _intimacy_data(root: Path, lines: list[str]) -> Path:
    """A SuperTweetEval data folder (hub layout) whose tweet_intimacy test split has these JSON lines."""
    folder = root / "data" / "tweet_intimacy"
    folder.mkdir(parents=True)
    (folder / "test.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return root


def _score(*args: str):
    return CliRunner().invoke(app, ["score", "--bootstrap", "10", *args])


REFERENCES = [3.0, 1.0, 2.5, 2.0, 4.0]


@pytest.fixture
def intimacy(tmp_path) -> Path:
    return _intimacy_data(
        tmp_path / "ste", [json.dumps({"text": f"t{i}", "gold_score": r}) for i, r in enumerate(REFERENCES)]
    )


def _score_lines(path: Path, data: Path, out: Path):
    """``mmsoc score`` of one SuperTweetEval prediction-lines file."""
    args = ["--predictions", str(path), "--data", str(data), "--out", str(out)]
    return _score("--format", "supertweeteval-lines", *args)


def test_regression_lines_nan_are_left_out_and_the_rest_scored_as_scipy_does(intimacy, tmp_path):
    """Row 2: ``2,1,nan,1.2,nan`` scored 0.8208 (NaN ranked last); the valid pairs give rho = 1."""
    path = tmp_path / "tweet_intimacy.txt"
    path.write_text("2\n1\nnan\n1.2\ninf\n")
    result = _score_lines(path, intimacy, tmp_path / "out")
    assert result.exit_code == 0, result.output
    entry = _strict_json(tmp_path / "out/metrics.json")["tweet_intimacy"]
    expected = spearmanr([2.0, 1.0, 1.2], [REFERENCES[0], REFERENCES[1], REFERENCES[3]]).statistic
    assert entry["spearman_script"] == pytest.approx(expected) and entry["n"] == 3
    skipped = _strict_json(tmp_path / "out/score_info.json")["tasks"]["tweet_intimacy"]["skipped_rows"]
    assert [line.split(": ")[0] for line in skipped] == [f"{path}, line 3", f"{path}, line 5"]


def test_unreadable_regression_lines_count_as_zero_as_the_script_does_and_are_counted(intimacy, tmp_path):
    """tweet_intimacy.py maps a line float() cannot read to 0: kept (the paper's protocol), and counted."""
    path = tmp_path / "tweet_intimacy.txt"
    path.write_text("2\n1\nabc\n1.2\n3\n")
    result = _score_lines(path, intimacy, tmp_path / "out")
    assert result.exit_code == 0, result.output
    entry = _strict_json(tmp_path / "out/metrics.json")["tweet_intimacy"]
    assert entry["spearman_script"] == pytest.approx(spearmanr([2.0, 1.0, 0.0, 1.2, 3.0], REFERENCES).statistic)
    info = _strict_json(tmp_path / "out/score_info.json")["tasks"]["tweet_intimacy"]["info"]
    assert info["unread_predictions"] == 1 and "1 of 5 predictions unread" in info["unread_rule"]


@pytest.mark.parametrize("gold", ["NaN", "Infinity", '"-inf"'])
def test_gold_nan_or_infinity_stops_with_file_line_and_field(tmp_path, gold):
    """Row 2, gold side: a gold NaN was accepted and written back as ``"reference": NaN``."""
    data = _intimacy_data(
        tmp_path / "ste", ['{"text": "a", "gold_score": 1.0}', f'{{"text": "b", "gold_score": {gold}}}']
    )
    path = tmp_path / "tweet_intimacy.txt"
    path.write_text("1\n2\n")
    result = _score(
        "--format",
        "supertweeteval-lines",
        "--predictions",
        str(path),
        "--data",
        str(data),
        "--out",
        str(tmp_path / "out"),
    )
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output
    assert "test.jsonl, line 2: field 'gold_score'" in lines[0]
    assert not (tmp_path / "out/metrics.json").exists()


def test_ocr_rows_with_numbers_dicts_or_nan_are_skipped_and_recorded(tmp_path):
    """Row 4: ``normalize() argument 2 must be str, not int`` (exit 1). Two good rows remain: identical
    texts, so by hand WER 0 and word F1 1 on n = 2."""
    rows = [
        '{"id": "a", "prediction": "hello world", "reference": "hello world"}',
        '{"id": "b", "prediction": 3, "reference": "three"}',
        '{"id": "c", "prediction": {"text": "x"}, "reference": "x"}',
        '{"id": "d", "prediction": "five", "reference": 5}',
        '{"id": "e", "prediction": NaN, "reference": "y"}',
        '{"id": "f", "prediction": "ok", "reference": Infinity}',
        '{"id": "g", "prediction": "a b", "reference": "a b"}',
    ]
    path = tmp_path / "ocr.jsonl"
    path.write_text("\n".join(rows) + "\n")
    result = _score("--task", "ocr", "--predictions", str(path), "--out", str(tmp_path / "out"), "--fast-metrics")
    assert result.exit_code == 0, result.output
    metrics = _strict_json(tmp_path / "out/metrics.json")
    assert metrics["n"] == 2 and metrics["wer"] == 0.0 and metrics["token_f1"] == 1.0
    skipped = _strict_json(tmp_path / "out/score_info.json")["skipped_rows"]
    where = [line.split(": ", 2)[:2] for line in skipped]
    assert where == [
        [f"{path}, line 2", "field 'prediction'"],
        [f"{path}, line 3", "field 'prediction'"],
        [f"{path}, line 4", "field 'reference'"],
        [f"{path}, line 5", "field 'prediction'"],
        [f"{path}, line 6", "field 'reference'"],
    ]


def test_ids_that_differ_only_in_spelling_stay_two_items_with_a_note(tmp_path):
    """``1`` and ``1.0`` are two ids as the file writes them: both scored, and the likely mistake noted."""
    path = tmp_path / "ocr.jsonl"
    path.write_text(
        '{"id": 1, "prediction": "a b", "reference": "a b"}\n{"id": 1.0, "prediction": "a b", "reference": "a c"}\n'
        '{"id": "2", "prediction": "c", "reference": "c"}\n'
    )
    result = _score("--task", "ocr", "--predictions", str(path), "--out", str(tmp_path / "out"), "--fast-metrics")
    assert result.exit_code == 0, result.output
    assert _strict_json(tmp_path / "out/metrics.json")["n"] == 3
    notes = _strict_json(tmp_path / "out/score_info.json")["notes"]
    assert len(notes) == 1 and "'1', '1.0'" in notes[0] and "spelling" in notes[0]
    assert "note: ids '1', '1.0'" in result.output


def test_an_undefined_metric_is_null_in_metrics_json_with_its_reason(tmp_path):
    """Row 11: a correlation over constant references (scipy: NaN) was written as a bare ``NaN``."""
    data = _intimacy_data(tmp_path / "ste", [json.dumps({"text": f"t{i}", "gold_score": 2.0}) for i in range(4)])
    with pytest.warns(ConstantInputWarning):
        assert math.isnan(spearmanr([0, 1, 2, 3], [2.0] * 4).statistic)
    result = CliRunner().invoke(
        app,
        ["eval", "--suite", "supertweeteval", "--task", "tweet_intimacy", "--model", "random", "--data", str(data),
         "--split", "test", "--out", str(tmp_path / "run")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    entry = _strict_json(tmp_path / "run/metrics.json")["supertweeteval/tweet_intimacy"]
    assert entry["metrics"]["spearman"] is None and entry["metrics"]["spearman_script"] is None
    assert set(entry["undefined"]) == {"spearman", "spearman_script"}
    for line in (tmp_path / "run/predictions.jsonl").read_text().splitlines():
        json.loads(line, parse_constant=lambda token: pytest.fail(f"predictions.jsonl holds {token}"))


def test_writers_refuse_nan_naming_the_field_and_leave_no_file(tmp_path):
    """Standard JSON out: a NaN or infinity reaching a writer is an error naming file and field, not ``NaN``."""
    from mmsoc.core.io import write_json, write_jsonl
    from mmsoc.core.jsonl_log import JsonlAppender

    with pytest.raises(ValueError, match=r"metrics\.json: field 'task\.rho'"):
        write_json(tmp_path / "metrics.json", {"task": {"rho": math.nan, "n": 3}})
    with pytest.raises(ValueError, match=r"rows\.jsonl: field 'scores\.1'"):
        write_jsonl(tmp_path / "rows.jsonl", [{"scores": [1.0, math.inf]}])
    assert not (tmp_path / "metrics.json").exists() and not (tmp_path / "rows.jsonl").exists()
    with JsonlAppender(tmp_path / "log.jsonl") as log, pytest.raises(ValueError, match="field 'loss'"):
        log.append({"loss": -math.inf})
    assert (tmp_path / "log.jsonl").read_text() == ""
