"""Reports that say one thing: hostile run names in ``desiq table``, verdicts from too few videos or items,
leaders named from unpaired scores, control bytes and entities in Markdown, one wording for chance.

Each case is worked by hand: the rows are built so that the expected words and counts follow from them."""

from __future__ import annotations

import json

import numpy as np
import pytest
from report_data import HOSTILE_NAMES, check_markdown, write_desiq_run, write_run
from sklearn.metrics import f1_score

from desiq.llm.metrics import condition_result, run_metrics, verdict
from desiq.llm.table import comparison_markdown, conditions_table
from desiq.probe_table import ProbeRow
from mmsoc.report import ReportSettings, write_report
from mmsoc.tasks.data import load_examples

TOO_FEW_ONE_VIDEO = "too few videos to tell (1 video), at least 10 needed"


def _desiq_rows(correct: list[bool], videos: list[str]) -> list[dict]:
    """Original A4 questions, each right or wrong as given (gold at position 0)."""
    return [
        {
            "id": f"q{k}",
            "vid_name": video,
            "condition": "original",
            "config": "A4",
            "rotation": 0,
            "options": ["a", "b", "c", "d"],
            "gold": 0,
            "chosen": 0 if ok else 1,
            "chosen_norm": 0 if ok else 1,
            "missing": [],
        }
        for k, (ok, video) in enumerate(zip(correct, videos))
    ]


def test_desiq_table_writes_run_folder_names_as_text():
    """Row 6: run folders named like markup are text in the comparison table."""
    runs = [
        (name, {"model": name, "inputs": "q+a", "answer": "loglik", "results": [], "adapter": None})
        for name in HOSTILE_NAMES
    ]
    check_markdown(comparison_markdown(runs))


def test_three_questions_of_one_video_give_no_interval_and_no_verdict():
    """Row 7: ``desiq eval --limit 3`` on one video: accuracy 2/3, no interval, no verdict."""
    metrics = run_metrics(_desiq_rows([True, True, False], ["v0"] * 3), ["original"], "loglik", "lenient", 0, {})
    (entry,) = [r for r in metrics["results"] if r["config"] == "A4"]
    assert entry["accuracy"] == pytest.approx(2 / 3) and entry["ci95"] is None
    assert verdict(entry) == TOO_FEW_ONE_VIDEO and entry["videos"] == 1
    (row,) = conditions_table(metrics["results"])[2:]
    assert row.split(" | ")[5] == "-" and TOO_FEW_ONE_VIDEO in row


def test_nine_videos_are_too_few_and_ten_are_enough_or_what_min_clusters_says():
    rows = _desiq_rows([True] * 18, [f"v{k // 2}" for k in range(18)])  # 9 videos, every answer right
    entry = condition_result(rows, "original", "A4", "loglik", "lenient", 0)
    assert entry["ci95"] is None and verdict(entry) == "too few videos to tell (9 videos), at least 10 needed"
    lowered = condition_result(rows, "original", "A4", "loglik", "lenient", 0, min_videos=9)
    assert lowered["ci95"] == [1.0, 1.0] and verdict(lowered, min_videos=9) == "above chance"


def test_a_probe_row_from_one_video_has_no_verdict():
    assert ProbeRow("original", "A4", 1.0, 0.25, 3, (1.0, 1.0), videos=1).verdict == TOO_FEW_ONE_VIDEO


def test_desiq_and_the_report_say_at_chance_alike(tmp_path):
    """Row 10, last part: one wording for an interval that holds chance."""
    assert verdict({"chance": 0.25, "ci95": [0.2, 0.3], "videos": 40}) == "at chance"
    row = ProbeRow("RIWI", "A4", 0.27, 0.25, 100, (0.20, 0.35), videos=40)
    assert row.verdict.startswith("at chance:")
    folder = write_desiq_run(tmp_path / "d", "m")
    metrics = json.loads((folder / "metrics.json").read_text())
    metrics["results"][0]["videos"] = 3  # the original A4 row
    (folder / "metrics.json").write_text(json.dumps(metrics))
    write_report([folder], tmp_path / "out", ReportSettings(n_boot=20, seed=0, fast=True))
    shown = json.loads((tmp_path / "out" / "report.json").read_text())["desiq"][0]["results"]
    assert shown[0]["verdict"] == "too few videos to tell (3 videos), at least 10 needed"
    assert "at chance" in {r["verdict"] for r in shown}  # RIWI A2: [0.42, 0.57] holds 0.5


def _hate_run(path, model: str, right: dict[str, bool]):
    """A hate run answering the items of ``right``: the reference where True, the other label where False."""
    path.mkdir()
    (path / "config.json").write_text(json.dumps({"model": model, "tasks": ["hate"], "seeds": [0]}))
    refs = {ex.id: ex.label for ex in load_examples("hate", "sample", "test").examples}
    flip = {"hateful": "not_hateful", "not_hateful": "hateful"}
    rows = []
    for item, ok in right.items():
        parsed = refs[item] if ok else flip[refs[item]]
        rows.append({"task": "hate", "id": item, "seed": 0, "parsed": parsed, "valid": True, "reference": refs[item]})
    (path / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path, refs


def _f1(refs: dict[str, str], right: dict[str, bool], items: list[str]) -> float:
    flip = {"hateful": "not_hateful", "not_hateful": "hateful"}
    predicted = [refs[i] if right[i] else flip[refs[i]] for i in items]
    return float(f1_score([refs[i] for i in items], predicted, average="macro", zero_division=0))


def test_a_leader_is_named_only_where_the_paired_comparison_on_shared_items_separates(tmp_path):
    """Row 10: run a answers 24 items (its last 12 all right), run b only the first 12 (``--limit 12``). On
    its own items a scores higher; on the 12 shared items b does: no leader, and the row says 12 shared."""
    ids = sorted(ex.id for ex in load_examples("hate", "sample", "test").examples)
    assert len(ids) == 24
    shared = ids[:12]
    a_right = {i: (k % 3 == 0) for k, i in enumerate(shared)} | dict.fromkeys(ids[12:], True)
    b_right = {i: (k % 2 == 0) for k, i in enumerate(shared)}
    a, refs = _hate_run(tmp_path / "a", "model-a", a_right)
    b, _ = _hate_run(tmp_path / "b", "model-b", b_right)
    a_own, b_own = _f1(refs, a_right, ids), _f1(refs, b_right, shared)
    a_shared = _f1(refs, a_right, shared)
    assert a_own > b_own > a_shared  # the case: unpaired, a is higher; on shared items, b
    write_report([a, b], tmp_path / "out", ReportSettings(n_boot=200, seed=0, fast=True))
    data = json.loads((tmp_path / "out" / "report.json").read_text())
    (row,) = data["summary"]
    assert row["leader"] is None  # before: model-a, from its score on items model-b never saw
    assert row["first"] == "model-a" and row["second"] == "model-b" and row["shared"] == 12
    assert row["difference"] == pytest.approx(a_shared - b_own)
    assert row["low"] < 0 < row["high"] and row["leader"] is None and row["verdict"] == "not separated"
    md = (tmp_path / "out" / "report.md").read_text()
    line = next(line for line in md.splitlines() if line.startswith("| hate |"))
    assert "| 12 |" in line and "not separated (paired bootstrap)" in line


def test_runs_that_all_score_zero_name_no_leader(tmp_path):
    """Row 10: OCR where every prediction shares no word with its reference: every run scores 0.000."""
    runs = []
    for name in ("model-a", "model-b"):
        run = write_run(tmp_path / name, name, [0], 0.0, {}, tasks=("ocr",))
        lines = [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
        for row in lines:
            row.update(parsed="zzqx", valid=True)
        (run / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
        runs.append(run)
    write_report(runs, tmp_path / "out", ReportSettings(n_boot=50, seed=0, fast=True))
    (row,) = json.loads((tmp_path / "out" / "report.json").read_text())["summary"]
    assert row["runs"]["model-a"]["value"] == row["runs"]["model-b"]["value"] == 0.0
    assert row["leader"] is None and row["difference"] == 0.0


def test_paired_comparisons_on_too_few_shared_items_have_no_interval_and_no_verdict(tmp_path):
    ids = sorted(ex.id for ex in load_examples("hate", "sample", "test").examples)
    a, _ = _hate_run(tmp_path / "a", "model-a", dict.fromkeys(ids, True))
    b, _ = _hate_run(tmp_path / "b", "model-b", dict.fromkeys(ids[:4], False))
    write_report([a, b], tmp_path / "out", ReportSettings(n_boot=50, seed=0, fast=True))
    data = json.loads((tmp_path / "out" / "report.json").read_text())
    (comp,) = data["comparisons"]
    f1 = comp["metrics"]["macro_f1"]
    assert comp["n_common"] == 4 and f1["difference"] == 1.0 and f1["low"] is None and f1["high"] is None
    assert f1["verdict"] == "too few items to tell (4 items), at least 10 needed"
    (row,) = data["summary"]
    assert row["leader"] is None and row["verdict"] == f1["verdict"]
    b_cell = next(e for e in data["tasks"])["runs"]["model-b"]["metrics"]["macro_f1"]
    assert b_cell["value"] == 0.0 and b_cell["low"] is None  # 4 items of its own: no interval either


def test_report_markdown_holds_no_control_bytes_and_no_entities(tmp_path):
    """Row 10: model output with control bytes, and the position test's ``p < 0.05``, as plain text."""
    run = write_run(
        tmp_path / "run",
        "model-a",
        [0],
        0.9,
        {},
        tasks=("image_description",),
        prefix={"image_description": "bell\x07 esc\x1b[31m "},
    )
    desiq = write_desiq_run(tmp_path / "desiq", "model-d")
    write_report([run, desiq], tmp_path / "out", ReportSettings(n_boot=20, seed=0, fast=True))
    md = (tmp_path / "out" / "report.md").read_text()
    check_markdown(md, ("bell esc[31m", "chi-square, p < 0.05"))
    assert np.all([ord(ch) >= 32 or ch == "\n" for ch in md])
