"""Reports over two runs made on the embedded sample, a desiq-eval run and arena ratings: tables, intervals,
comparisons, the summary that opens the page, escaping, and an offline HTML page."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from report_data import (
    DESIQ_CONDITIONS,
    HOSTILE_NAMES,
    TASKS_USED,
    check_markdown,
    write_desiq_run,
    write_ratings,
    write_run,
)
from typer.testing import CliRunner

from mmsoc.cli import app
from mmsoc.report import ReportSettings, write_report
from mmsoc.tasks import score_task

N_BOOT = 200


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    strong = write_run(root / "strong", "model-a", [0, 1], 0.85, {})
    weak = write_run(root / "weak", "model-b", [0], 0.5, {"ocr": 5}, extra_tasks=("sarcasm",), strict=False)
    with open(weak / "predictions.jsonl", "a") as handle:
        handle.write('{"task": "hate", "id": "broken"\n')
        handle.write(
            json.dumps(
                {"task": "hate", "id": "x1", "seed": 0, "parsed": "hateful", "valid": True, "reference": "maybe"}
            )
            + "\n"
        )
    return strong, weak


@pytest.fixture(scope="module")
def others(tmp_path_factory):
    """A desiq-eval run (metrics.json as its contract has it) and an arena ratings folder."""
    root = tmp_path_factory.mktemp("others")
    return write_desiq_run(root / "desiq", "model-a"), write_ratings(root / "arena")


@pytest.fixture(scope="module")
def folders(runs, others):
    return [*runs, *others]


@pytest.fixture(scope="module")
def report(folders, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    write_report(folders, out, ReportSettings(n_boot=N_BOOT, seed=0, fast=True))
    return out


def _score(task: str, rows: list[dict]) -> dict:
    """The metrics computed directly: OCR per dataset (the id's prefix), then averaged, as the paper does."""
    groups: dict[str, list[dict]] = {}
    for row in rows:
        groups.setdefault(row["id"].split("/")[0] if task == "ocr" else "", []).append(row)
    scores = [
        score_task(task, [r["parsed"] for r in group], [r["reference"] for r in group], fast=True)
        for group in groups.values()
    ]
    return {key: np.mean([s[key] for s in scores]) for key in scores[0] if key != "n"}


def _rows(run: Path, task: str) -> dict[int, list[dict]]:
    by_seed: dict[int, list[dict]] = {}
    for line in (run / "predictions.jsonl").read_text().splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if row["task"] == task and row["reference"] != "maybe":
            by_seed.setdefault(row["seed"], []).append(row)
    return by_seed


def test_tables_match_direct_library_scores(runs, report):
    data = json.loads((report / "report.json").read_text())
    entries = {entry["task"]: entry for entry in data["tasks"]}
    assert set(entries) == set(TASKS_USED)
    for run, name in zip(runs, ("model-a", "model-b")):
        for task in TASKS_USED:
            cell = entries[task]["runs"][name]
            per_seed = [_score(task, rows) for rows in _rows(run, task).values()]
            for key, value in cell["metrics"].items():
                expected = np.mean([s[key] for s in per_seed])
                assert abs(value["value"] - expected) < 1e-9, (name, task, key)
                assert value["low"] <= value["high"]
            assert cell["seeds"] == ([0, 1] if name == "model-a" else [0])
    ocr = entries["ocr"]
    assert ocr["runs"]["model-b"]["missing_items"] == 5 and ocr["runs"]["model-a"]["missing_items"] == 0
    assert len(_rows(runs[0], "ocr")) == 2 and {r["id"].split("/")[0] for r in _rows(runs[0], "ocr")[0]} == {
        "hateful_memes",
        "memotion",
    }  # the sample has both datasets: the averages above are over two
    per_seed_f1 = [
        score_task("hate", [r["parsed"] for r in rows], [r["reference"] for r in rows])["macro_f1"]
        for rows in _rows(runs[0], "hate").values()
    ]
    assert (
        abs(entries["hate"]["runs"]["model-a"]["metrics"]["macro_f1"]["seed_std"] - np.std(per_seed_f1, ddof=1)) < 1e-9
    )  # sample std over the two seeds
    assert entries["hate"]["runs"]["model-b"]["metrics"]["macro_f1"]["seed_std"] is None  # one seed: no spread


def test_missing_tasks_and_bad_lines_are_reported(report):
    data = json.loads((report / "report.json").read_text())
    weak = next(run for run in data["runs"] if run["name"] == "model-b")
    assert weak["missing_tasks"] == ["sarcasm"]
    assert len(weak["skipped_lines"]) == 2
    assert "invalid JSON" in weak["skipped_lines"][0] and "field 'reference'" in weak["skipped_lines"][1]
    aggregates = data["aggregates"]["model-b"]
    assert aggregates["mean"] is None and "sarcasm" in aggregates["missing_tasks"]
    present = [v for v in aggregates["unified"].values() if v is not None]
    assert abs(aggregates["mean_of_present"] - np.mean(present)) < 1e-12


def test_ocr_unified_score_averages_its_two_datasets(runs, report):
    data = json.loads((report / "report.json").read_text())
    rows = _rows(runs[1], "ocr")[0]
    by_dataset = {}
    for row in rows:
        by_dataset.setdefault(row["id"].split("/")[0], []).append(row)
    assert len(by_dataset) == 2
    expected = np.mean(
        [
            score_task("ocr", [r["parsed"] for r in group], [r["reference"] for r in group])["token_f1"]
            for group in by_dataset.values()
        ]
    )
    assert abs(data["aggregates"]["model-b"]["unified"]["ocr"] - expected) < 1e-9
    misinfo = data["aggregates"]["model-b"]["unified"]["misinfo"]
    assert misinfo is None  # gossipcop is absent: not silently averaged over politifact alone


def test_paired_comparison(runs, report):
    data = json.loads((report / "report.json").read_text())
    comparisons = {c["task"]: c for c in data["comparisons"]}
    assert set(comparisons) == set(TASKS_USED)
    ocr = comparisons["ocr"]
    assert ocr["a"] == "model-a" and ocr["b"] == "model-b" and ocr["only_in_a"] == 5 and ocr["only_in_b"] == 0
    hate = comparisons["hate"]["metrics"]["macro_f1"]
    a_rows, b_rows = _rows(runs[0], "hate"), _rows(runs[1], "hate")
    a = np.mean(
        [
            score_task("hate", [r["parsed"] for r in rows], [r["reference"] for r in rows])["macro_f1"]
            for rows in a_rows.values()
        ]
    )
    b = score_task("hate", [r["parsed"] for r in b_rows[0]], [r["reference"] for r in b_rows[0]])["macro_f1"]
    assert abs(hate["difference"] - (a - b)) < 1e-9
    assert hate["low"] <= hate["high"] and hate["high"] - hate["low"] > 0
    md = (report / "report.md").read_text()
    hate_section = md[md.index("## Task hate") : md.index("## Task sentiment")]
    assert "**hate: model-a vs model-b, paired difference a \u2212 b on 24 common items" in hate_section


class _Page(HTMLParser):
    """The page's elements in document order (tag, attributes), its images and its table captions."""

    def __init__(self):
        super().__init__()
        self.order, self.images, self.captions, self._caption = [], [], [], False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.order.append((tag, attrs))
        if tag == "img":
            self.images.append(attrs.get("src", ""))
        for name in ("href", "src"):
            assert not str(attrs.get(name, "")).startswith(("http:", "https:", "//")), attrs
        self._caption = tag == "caption"

    def handle_data(self, data):
        if self._caption:
            self.captions.append(data)
            self._caption = False

    def tags(self) -> list[str]:
        return [tag for tag, _ in self.order]


def _page(report: Path) -> _Page:
    page = _Page()
    page.feed((report / "report.html").read_text())
    return page


def test_html_is_self_contained_with_every_figure_and_table(report):
    page = (report / "report.html").read_text()
    parser = _page(report)
    assert not {"script", "link", "iframe", "object"} & set(parser.tags())
    assert "@import" not in page and "url(" not in page and "@font-face" not in page
    for src in parser.images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads((report / "report.json").read_text())
    classification = [e["task"] for e in data["tasks"] if e["kind"] == "classification"]
    generation = [e["task"] for e in data["tasks"] if e["kind"] == "generation"]
    # the summary; per task its metric panels, a heatmap per classification task, a length histogram per
    # generation task; the desiq conditions and position charts; the arena interval plot
    assert len(parser.images) == 1 + len(TASKS_USED) + len(classification) + len(generation) + 2 + 1
    captions = " | ".join(parser.captions)
    for task in TASKS_USED:
        assert f"{task} metrics" in captions and f"{task} items and answer format" in captions
    assert "Unified scores" in captions and "Methods" in captions and "Runs" in captions
    assert "Who leads each task" in captions and "model-a: conditions" in captions
    assert "Answer positions" in captions and "arena ratings: leaderboard" in captions
    assert re.search(r"METEOR: (with|without) WordNet", page)


def test_the_page_opens_with_the_answer_then_one_section_per_task(report):
    """h1, the summary figure, who leads, the unified score and the contents come first; every task's section
    has its figures before its tables."""
    order = _page(report).order
    tags = [tag for tag, _ in order]
    first_table, first_img = tags.index("table"), tags.index("img")
    assert tags.index("h1") < first_img < first_table
    nav = tags.index("nav")
    assert first_table < nav < tags.index("h2", tags.index("h2") + 1)  # contents before the second section
    anchors = [attrs["href"][1:] for tag, attrs in order if tag == "a"]
    ids = [attrs["id"] for tag, attrs in order if "id" in attrs]
    assert anchors == [a for a in ids if a in anchors] and set(anchors) <= set(ids) and len(anchors) == len(ids)
    for task in TASKS_USED:
        start = next(i for i, (tag, attrs) in enumerate(order) if attrs.get("id") == f"task-{task}")
        end = next(i for i, (tag, _) in enumerate(order) if tag == "h2" and i > start)
        section = tags[start:end]
        assert "img" in section and "table" in section
        assert section.index("img") < section.index("table"), task


def test_summary_leaders_follow_the_numbers(report):
    data = json.loads((report / "report.json").read_text())
    comparisons = {(c["task"], c["a"], c["b"]): c for c in data["comparisons"]}
    rows = {row["task"]: row for row in data["summary"]}
    for entry in data["tasks"]:
        row = rows[entry["task"]]
        values = {name: cell["metrics"][entry["headline"]]["value"] for name, cell in entry["runs"].items()}
        leader = max(values, key=values.get)
        assert row["first"] == leader and row["metric"] == entry["headline"]
        other = next(name for name in values if name != leader)
        comp = comparisons.get((entry["task"], leader, other))
        if comp is None:
            diff = comparisons[(entry["task"], other, leader)]["metrics"][entry["headline"]]
            low, high = -diff["high"], -diff["low"]
        else:
            low, high = (comp["metrics"][entry["headline"]][k] for k in ("low", "high"))
        assert row["low"] == pytest.approx(low) and row["high"] == pytest.approx(high)
        named = leader if low > 0 else other if high < 0 else None  # two runs: the paired interval decides
        assert row["leader"] == named and row["verdict"] == ("separated" if named else "not separated")
        assert row["shared"] == (comp or comparisons[(entry["task"], other, leader)])["n_common"]
    assert {row["verdict"] for row in data["summary"] if "shared" in row} == {
        "separated",
        "not separated",
    }  # both verdicts
    original = rows["Social-IQ original A4"]
    assert original["runs"]["model-a"]["value"] == pytest.approx(DESIQ_CONDITIONS[0][1]) and original["chance"] == 0.25
    md = (report / "report.md").read_text()
    summary = md[md.index("## Summary") : md.index("## Runs")]
    assert "*Figure (in report.html): Headline score per task" in summary and "**Contents**" in summary
    assert "- [Task hate](#task-hate)" in summary


def test_numbers_are_rounded_for_reading_and_kept_whole_in_json(report):
    data = json.loads((report / "report.json").read_text())
    hate = next(e for e in data["tasks"] if e["task"] == "hate")["runs"]["model-a"]["metrics"]["macro_f1"]
    assert len(repr(hate["value"])) > 8  # full precision in report.json
    md = (report / "report.md").read_text()
    line = next(
        line
        for line in md.splitlines()
        if line.startswith("| macro_f1 |") and md.index(line) > md.index("## Task hate")
    )
    assert f"| macro_f1 | {hate['value']:.3f} \\[{hate['low']:.3f}, {hate['high']:.3f}\\] |" in line


def test_confusion_matrices_are_heatmaps_with_their_numbers(report):
    data = json.loads((report / "report.json").read_text())
    page = (report / "report.html").read_text()
    md = (report / "report.md").read_text()
    for task in ("misinfo_politifact", "hate", "sentiment"):
        title = f"{task} confusion matrices (rows: reference, columns: prediction; summed over seeds)"
        assert f'<img alt="{title}"' in page and f"*Figure (in report.html): {title}*" in md
        section = md[md.index(f"## Task {task}") :]
        for name, matrix in data["confusion"][task].items():
            assert f"| {task} confusion matrix, {name} |" in section
            for label, row in zip(matrix["labels"], matrix["matrix"]):
                assert f"| {label} | " + " | ".join(map(str, row)) + " |" in section


def test_generation_tasks_show_predictions_beside_references(runs, report):
    data = json.loads((report / "report.json").read_text())
    examples = data["examples"]["image_description"]
    rows = {(r["id"], r["seed"]): r for r in _rows(runs[0], "image_description")[0]}
    weak = {r["id"]: r for r in _rows(runs[1], "image_description")[0]}
    assert len(examples) == 3 and [e["id"] for e in examples] == sorted(e["id"] for e in examples)
    md = (report / "report.md").read_text()
    for example in examples:
        assert example["reference"] == rows[example["id"], 0]["reference"]
        assert example["predictions"] == {
            "model-a": rows[example["id"], 0]["parsed"],
            "model-b": weak[example["id"]]["parsed"],
        }
        assert f"| {example['id']} | {example['reference']} |" in md
    assert list(data["examples"]) == ["image_description"]


def test_desiq_run_shows_its_conditions_verdicts_and_position_bias(others, report):
    from scipy.stats import chi2

    data = json.loads((report / "report.json").read_text())
    (entry,) = data["desiq"]
    source = json.loads((others[0] / "metrics.json").read_text())
    assert entry["model"] == "model-a" and entry["inputs"] == "q+a+t+v" and entry["answer"] == "loglik"
    for shown, given in zip(entry["results"], source["results"], strict=True):
        assert {k: shown[k] for k in given} == given
        low, high = given["ci95"]
        expected = (
            "above chance" if low > given["chance"] else "below chance" if high < given["chance"] else "at chance"
        )
        if given["condition"] == "circular":  # (1/k)^k is beaten by any model: no verdict against chance
            expected = "no chance verdict (circular: see its position consistency)"
        assert shown["verdict"] == expected
    assert {r["verdict"] for r in entry["results"] if r["condition"] != "circular"} == {
        "above chance",
        "below chance",
        "at chance",
    }
    chosen, gold = source["position"]["chosen"], source["position"]["gold"]
    expected = [g * sum(chosen) / sum(gold) for g in gold]
    statistic = sum((o - e) ** 2 / e for o, e in zip(chosen, expected))
    assert entry["position"]["chi2"] == pytest.approx(statistic)
    assert entry["position"]["p"] == pytest.approx(chi2.sf(statistic, len(chosen) - 1))
    assert entry["position"]["p"] < 0.05 and entry["position"]["verdict"].startswith("chosen positions differ")
    md = (report / "report.md").read_text()
    section = md[md.index("## Social-IQ runs (desiq eval)") : md.index("## Arena ratings")]
    assert "| original | A4 | 0.620 | \\[0.540, 0.690\\] | 0.250 | 120 | \u2014 | above chance |" in section
    assert "*Figure (in report.html): Position bias" in section and "| model-a | 52 | 31 | 22 | 15 | 30 |" in section


def test_arena_ratings_show_their_interval_plot_and_leaderboard(report):
    data = json.loads((report / "report.json").read_text())
    (entry,) = data["arena"]
    assert [m["model"] for m in entry["models"]] == ["model-a", "model-b"] and entry["dropped"] == 3
    md = (report / "report.md").read_text()
    section = md[md.index("## Arena ratings") :]
    assert "*Figure (in report.html): arena ratings: bt ratings with 95% bootstrap intervals*" in section
    assert "| 1 | model-a | 1041.5 | 1012.0 | 1070.2 | 1040.0 | 40 |" in section


def test_bad_desiq_metrics_are_named_by_file_and_field(tmp_path):
    folder = write_desiq_run(tmp_path / "d", "m")
    metrics = json.loads((folder / "metrics.json").read_text())
    metrics["results"][3]["ci95"] = [0.1]
    (folder / "metrics.json").write_text(json.dumps(metrics))
    result = CliRunner().invoke(app, ["report", str(folder), "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert f"{folder / 'metrics.json'}: field 'results[3].ci95': expected [low, high]" in result.output
    (folder / "metrics.json").write_text("{")
    result = CliRunner().invoke(app, ["report", str(folder), "--out", str(tmp_path / "r")])
    assert result.exit_code == 2 and "invalid JSON" in result.output and not (tmp_path / "r").exists()


def test_hostile_text_is_escaped_in_markdown_and_html(tmp_path):
    """Every hostile name of the suite, as model names, folder names and predictions, renders as its text in
    report.md (CommonMark, by markdown-it-py) and report.html, and as no markup."""
    runs = [
        write_run(
            tmp_path / f"{k}",
            name,
            [0],
            0.9,
            {},
            tasks=("image_description",),
            prefix={"image_description": name + " "},
        )
        for k, name in enumerate(HOSTILE_NAMES)
    ]
    twins = [
        write_run(tmp_path / name.replace("/", "\u2215"), "twin", [0], 0.5, {}, tasks=("hate",))
        for name in ("<i>a", "b|c")
    ]
    desiq = write_desiq_run(tmp_path / "desiq", "<iframe src=//x></iframe>")
    write_report([*runs, *twins, desiq], tmp_path / "out", ReportSettings(n_boot=20, seed=0, fast=True))
    md = (tmp_path / "out" / "report.md").read_text()
    page = (tmp_path / "out" / "report.html").read_text()
    check_markdown(md, (*HOSTILE_NAMES, "<iframe src=//x></iframe>", "twin (<i>a)", "twin (b|c)"))
    assert "| \\<script\\>alert(1)\\</script\\>" in md  # a prediction, in the examples table
    for raw in ("<script", "<img src=x", "<b ", "<iframe", 'href="javascript'):
        assert raw not in page, raw
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;iframe src=//x&gt;" in page


def test_report_is_deterministic(folders, report, tmp_path):
    write_report(folders, tmp_path, ReportSettings(n_boot=N_BOOT, seed=0, fast=True))
    for name in ("report.json", "report.md", "report.html"):
        assert (tmp_path / name).read_bytes() == (report / name).read_bytes(), name


def test_report_cli_says_where_the_page_is(folders, tmp_path):
    result = CliRunner().invoke(
        app, ["report", *map(str, folders), "--out", str(tmp_path), "--bootstrap", "20", "--fast-metrics"]
    )
    assert result.exit_code == 0, result.output
    assert {p.name for p in tmp_path.iterdir()} >= {"report.json", "report.md", "report.html"}
    page = (tmp_path / "report.html").resolve()
    assert f"wrote {page} " in result.output and f"open it: {page.as_uri()}" in result.output
    assert "1 desiq runs, 1 arena ratings" in result.output


def test_open_hands_the_page_to_the_browser(runs, tmp_path):
    """``--open`` goes through Python's webbrowser, which runs the command named by BROWSER: here a small
    script that records the address it is given."""
    record = tmp_path / "opened.txt"
    script = tmp_path / "fake-browser"
    script.write_text(f'#!/bin/sh\nprintf "%s" "$1" > "{record}"\n')
    script.chmod(0o755)
    env = {**os.environ, "BROWSER": str(script), "CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1"}
    out = tmp_path / "report"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mmsoc",
            "report",
            str(runs[0]),
            "--out",
            str(out),
            "--bootstrap",
            "20",
            "--fast-metrics",
            "--open",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    page = (out / "report.html").resolve()
    assert record.read_text() == page.as_uri()
    assert f"open it: {page.as_uri()}" in done.stdout
    quiet = subprocess.run(
        [
            sys.executable,
            "-m",
            "mmsoc",
            "report",
            str(runs[0]),
            "--out",
            str(tmp_path / "again"),
            "--bootstrap",
            "20",
            "--fast-metrics",
        ],
        env={**env, "BROWSER": str(tmp_path / "nope")},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert quiet.returncode == 0 and record.read_text() == page.as_uri()  # without --open nothing is launched


def test_ocr_normalisation_is_documented(report):
    data = json.loads((report / "report.json").read_text())
    assert any(note.startswith("OCR: OCR text is normalised") for note in data["notes"])


def test_ocr_token_f1_is_shown_with_the_papers_name(report):
    md = (report / "report.md").read_text()
    start = md.index("## Task ocr")
    task = md[start : md.index("\n## ", start)]
    assert "\n| token_f1 (the paper's Macro-F1) | " in task
    assert "| macro_f1 |" not in task
