"""OCR scored per dataset, then averaged (as the paper reports it), in metrics.json, `mmsoc score` and the report;
the strict success rate as the headline; the package and settings of every metric printed."""

from __future__ import annotations

import json

import jiwer
import numpy as np
import pytest
from nltk.translate.bleu_score import corpus_bleu
from typer.testing import CliRunner

from mmsoc.cli import app
from mmsoc.core.markdown import md_text
from mmsoc.metrics.normalize import normalize_ocr
from mmsoc.metrics.registry import find_metric
from mmsoc.report import ReportSettings, write_report
from mmsoc.runners.summary import summarize

ITEMS = {  # id -> (reference, prediction of seed 0, prediction of seed 1)
    "hateful_memes/01": ("when you see it", '"when you see it"', '"when u see it"'),
    "hateful_memes/02": ("love is love", '"love is love"', None),
    "hateful_memes/03": ("the cat sat on the mat", '"the cat sat"', '"the cat sat on a mat"'),
    "memotion/a.jpg": ("one does not simply walk into mordor", '"one does simply walk"', '"walk into mordor"'),
    "memotion/b.png": ("ok", '"okay"', '"ok"'),
}
NLTK_WARNINGS = pytest.mark.filterwarnings("ignore::UserWarning:nltk.translate.bleu_score")


def _log_rows(task: str = "ocr") -> list[dict]:
    rows = []
    for seed in (0, 1):
        for item, (reference, *predictions) in ITEMS.items():
            raw = predictions[seed]
            parsed = None if raw is None else raw.strip('"')
            rows.append(
                {
                    "task": task,
                    "id": item,
                    "seed": seed,
                    "raw": str(raw),
                    "parsed": parsed,
                    "valid": parsed is not None,
                    "strict_valid": raw is not None and raw != '"ok"',
                    "reference": reference,
                }
            )
    return rows


def _direct(seed: int, dataset: str) -> dict[str, float]:
    """WER, CER and NLTK BLEU of one seed on one dataset, from jiwer and nltk directly."""
    pairs = [
        (normalize_ocr(preds[seed] and preds[seed].strip('"')), normalize_ocr(ref))
        for item, (ref, *preds) in ITEMS.items()
        if item.startswith(dataset + "/")
    ]
    hyp, ref = [p for p, _ in pairs], [r for _, r in pairs]
    out = {"wer": jiwer.wer(ref, hyp), "cer": jiwer.cer(ref, hyp)}
    for n in (1, 2):
        out[f"bleu{n}"] = corpus_bleu([[r.split()] for r in ref], [h.split() for h in hyp], weights=(1 / n,) * n)
    return out


@NLTK_WARNINGS
def test_summary_scores_each_ocr_dataset_then_averages():
    entry = summarize(_log_rows(), ["ocr"], fast=True)["ocr"]
    assert entry["averaged_over"] == ["hateful_memes", "memotion"]
    per = entry["per_dataset"]
    assert per["hateful_memes"]["n"] == 3 and per["memotion"]["n"] == 2 and entry["n"] == 5
    for key in ("wer", "cer", "bleu1", "bleu2"):
        for dataset in ("hateful_memes", "memotion"):
            expected = np.mean([_direct(seed, dataset)[key] for seed in (0, 1)])
            assert abs(per[dataset]["metrics"][key] - expected) < 1e-12, (dataset, key)
        by_seed = [np.mean([_direct(seed, d)[key] for d in ("hateful_memes", "memotion")]) for seed in (0, 1)]
        assert abs(entry["metrics"][key] - np.mean(by_seed)) < 1e-12, key  # the paper's OCR score
        assert abs(entry["per_seed"]["1"][key] - by_seed[1]) < 1e-12
    # success: strict counts responses in the requested format (quoted, and here '"ok"' marked not),
    # lenient counts what could be read: 10 responses, 1 missing, 1 '"ok"'
    assert entry["success_rate"] == pytest.approx(8 / 10) and entry["success_rate_lenient"] == pytest.approx(9 / 10)
    assert per["memotion"]["success_rate"] == pytest.approx(3 / 4)


def test_summary_without_strict_validity_has_no_strict_rate():
    rows = _log_rows()
    for row in rows:
        del row["strict_valid"]
    entry = summarize(rows, ["ocr"], fast=True)["ocr"]
    assert entry["success_rate"] is None and entry["success_rate_lenient"] == pytest.approx(9 / 10)


@NLTK_WARNINGS
def test_score_command_averages_datasets_and_prints_methods(tmp_path):
    path = tmp_path / "ocr.jsonl"
    path.write_text(
        "".join(
            json.dumps({"id": item, "prediction": preds[0], "reference": ref}) + "\n"
            for item, (ref, *preds) in ITEMS.items()
        )
    )
    result = CliRunner().invoke(
        app, ["score", "--task", "ocr", "--predictions", str(path), "--out", str(tmp_path / "out"), "--bootstrap", "50"]
    )
    assert result.exit_code == 0, result.output
    metrics = json.loads((tmp_path / "out/metrics.json").read_text())
    info = json.loads((tmp_path / "out/score_info.json").read_text())
    assert info["averaged_over"] == ["hateful_memes", "memotion"]
    for key in ("wer", "bleu1", "bleu2"):
        expected = {d: _direct(0, d)[key] for d in ("hateful_memes", "memotion")}
        assert abs(info["per_dataset"]["memotion"][key] - expected["memotion"]) < 1e-12
        assert abs(metrics[key] - np.mean(list(expected.values()))) < 1e-12
        low, high = info["intervals"]["values"][key]
        assert low <= high
    assert metrics["n"] == 5
    lines = result.output.splitlines()
    assert "how each metric was computed:" in lines
    for key in metrics:
        if key != "n":
            assert f"  {key}: {find_metric('ocr', key).describe()}" in lines
            assert info["methods"][key] == find_metric("ocr", key).describe()
    assert any(line.startswith("hateful_memes: wer=") for line in lines)
    # ids that name no dataset: scored together, as before
    path.write_text(
        "".join(
            json.dumps({"id": str(i), "prediction": preds[0], "reference": ref}) + "\n"
            for i, (ref, *preds) in enumerate(ITEMS.values())
        )
    )
    assert (
        CliRunner()
        .invoke(
            app,
            [
                "score",
                "--task",
                "ocr",
                "--predictions",
                str(path),
                "--out",
                str(tmp_path / "pooled"),
                "--bootstrap",
                "0",
            ],
        )
        .exit_code
        == 0
    )
    pooled = json.loads((tmp_path / "pooled/score_info.json").read_text())
    assert "per_dataset" not in pooled
    hyp = [normalize_ocr(preds[0] and preds[0].strip('"')) for _, *preds in ITEMS.values()]
    ref = [normalize_ocr(r) for r, *_ in ITEMS.values()]
    assert abs(json.loads((tmp_path / "pooled/metrics.json").read_text())["wer"] - jiwer.wer(ref, hyp)) < 1e-12


@NLTK_WARNINGS
def test_report_shows_each_ocr_dataset_and_the_average(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"model": "m", "tasks": ["ocr"], "seeds": [0, 1]}))
    (run / "predictions.jsonl").write_text("".join(json.dumps(row) + "\n" for row in _log_rows()))
    write_report([run], tmp_path / "report", ReportSettings(n_boot=100, seed=0, fast=True))
    data = json.loads((tmp_path / "report/report.json").read_text())
    cell = data["tasks"][0]["runs"]["m"]
    assert cell["averaged_over"] == ["hateful_memes", "memotion"]
    for key in ("wer", "bleu1"):
        per = {d: np.mean([_direct(seed, d)[key] for seed in (0, 1)]) for d in ("hateful_memes", "memotion")}
        for dataset, value in per.items():
            part = cell["per_dataset"][dataset]["metrics"][key]
            few = cell["per_dataset"][dataset]["n"] < 10  # no interval from fewer than 10 items
            assert abs(part["value"] - value) < 1e-12 and (part["low"] is None if few else part["low"] <= part["high"])
        assert abs(cell["metrics"][key]["value"] - np.mean(list(per.values()))) < 1e-12
    assert abs(data["aggregates"]["m"]["unified"]["ocr"] - cell["metrics"]["token_f1"]["value"]) < 1e-12
    assert cell["success_rate"] == pytest.approx(0.8) and cell["success_rate_lenient"] == pytest.approx(0.9)
    md = (tmp_path / "report/report.md").read_text()
    for label in ("m \u00b7 hateful_memes", "m \u00b7 memotion", "m \u00b7 average"):
        assert f"| {label} |" in md
    assert "| success rate | lenient success rate |" in md
    for key in cell["metrics"]:  # every metric in the table has its method line, with package versions
        assert data["methods"][key] == find_metric("ocr", key).describe()
        assert f"| {key} | {md_text(find_metric('ocr', key).describe())} |" in md
    assert "requested format" in data["methods"]["success_rate"]
