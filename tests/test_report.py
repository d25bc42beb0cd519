"""Reports over two runs made on the embedded sample: tables, intervals, comparisons and an offline HTML page."""

from __future__ import annotations

import base64
import json
import random
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from mmsoc.cli import app
from mmsoc.tasks.data import load_examples
from mmsoc.tasks import score_task
from mmsoc.report import ReportSettings, write_report
from mmsoc.tasks.registry import TASKS

TASKS_USED = ("misinfo_politifact", "tagging", "hate", "sentiment", "ocr", "image_description")
N_BOOT = 200


def _predict(task: str, reference: object, rng: random.Random, skill: float) -> object:
    """A noisy copy of the reference: right with probability ``skill``, otherwise wrong or unparseable."""
    kind = TASKS[task].kind
    if rng.random() < 0.1:
        return None
    if kind == "classification":
        return reference if rng.random() < skill else rng.choice(TASKS[task].labels)
    if kind == "multilabel":
        return [t for t in reference if rng.random() < skill] + ([rng.choice(TASKS[task].labels)] if rng.random() > skill else [])
    words = str(reference).split()
    return " ".join(w for w in words if rng.random() < skill)


def _write_run(path: Path, model: str, seeds: list[int], skill: float, drop: dict[str, int], extra_tasks=(),
               strict: bool = True) -> Path:
    """A run folder; ``strict``: rows record strict validity (every third valid response fails it)."""
    path.mkdir(parents=True)
    config = {"model": model, "tasks": list(TASKS_USED) + list(extra_tasks), "seeds": seeds, "greedy": False,
              "prompt_version": "mmsoc-v1", "data": "sample", "split": "test"}
    (path / "config.json").write_text(json.dumps(config))
    lines = []
    for task in TASKS_USED:
        examples = load_examples(task, "sample", "test").examples
        examples = examples[: len(examples) - drop.get(task, 0)]
        for seed in seeds:
            rng = random.Random(f"{model}-{task}-{seed}")
            for ex in examples:
                parsed = _predict(task, ex.label, rng, skill)
                row = {"task": task, "id": ex.id, "seed": seed, "prompt_version": "mmsoc-v1", "raw": str(parsed),
                       "parsed": parsed, "valid": parsed is not None, "reference": ex.label}
                if strict:
                    row["strict_valid"] = parsed is not None and len(lines) % 3 != 0
                lines.append(json.dumps(row))
    (path / "predictions.jsonl").write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    strong = _write_run(root / "strong", "model-a", [0, 1], 0.85, {})
    weak = _write_run(root / "weak", "model-b", [0], 0.5, {"ocr": 5}, extra_tasks=("sarcasm",), strict=False)
    with open(weak / "predictions.jsonl", "a") as handle:
        handle.write('{"task": "hate", "id": "broken"\n')
        handle.write(json.dumps({"task": "hate", "id": "x1", "seed": 0, "parsed": "hateful", "valid": True,
                                 "reference": "maybe"}) + "\n")
    return strong, weak


@pytest.fixture(scope="module")
def report(runs, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    write_report(list(runs), out, ReportSettings(n_boot=N_BOOT, seed=0, fast=True))
    return out


def _score(task: str, rows: list[dict]) -> dict:
    """The metrics computed directly: OCR per dataset (the id's prefix), then averaged, as the paper does."""
    groups: dict[str, list[dict]] = {}
    for row in rows:
        groups.setdefault(row["id"].split("/")[0] if task == "ocr" else "", []).append(row)
    scores = [score_task(task, [r["parsed"] for r in group], [r["reference"] for r in group], fast=True)
              for group in groups.values()]
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
        "hateful_memes", "memotion"}  # the sample has both datasets: the averages above are over two
    per_seed_f1 = [score_task("hate", [r["parsed"] for r in rows], [r["reference"] for r in rows])["macro_f1"]
                   for rows in _rows(runs[0], "hate").values()]
    assert abs(entries["hate"]["runs"]["model-a"]["metrics"]["macro_f1"]["seed_std"]
               - np.std(per_seed_f1, ddof=1)) < 1e-9  # sample std over the two seeds
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
    expected = np.mean([score_task("ocr", [r["parsed"] for r in group], [r["reference"] for r in group])["macro_f1"]
                        for group in by_dataset.values()])
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
    a = np.mean([score_task("hate", [r["parsed"] for r in rows], [r["reference"] for r in rows])["macro_f1"]
                 for rows in a_rows.values()])
    b = score_task("hate", [r["parsed"] for r in b_rows[0]], [r["reference"] for r in b_rows[0]])["macro_f1"]
    assert abs(hate["difference"] - (a - b)) < 1e-9
    assert hate["low"] <= hate["high"] and hate["high"] - hate["low"] > 0
    md = (report / "report.md").read_text()
    assert "Paired comparisons" in md and "hate: model-a vs model-b" in md


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.images, self.captions, self.tags, self._caption = [], [], set(), False

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        attrs = dict(attrs)
        if tag == "img":
            self.images.append(attrs.get("src", ""))
        for name in ("href", "src"):
            assert not str(attrs.get(name, "")).startswith(("http:", "https:", "//")), attrs
        self._caption = tag == "caption"

    def handle_data(self, data):
        if self._caption:
            self.captions.append(data)
            self._caption = False


def test_html_is_self_contained_with_every_figure_and_table(report):
    page = (report / "report.html").read_text()
    parser = _Collector()
    parser.feed(page)
    assert "script" not in parser.tags and "link" not in parser.tags
    assert parser.images, "no figures"
    for src in parser.images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads((report / "report.json").read_text())
    metric_keys = {k for entry in data["tasks"] for k in entry["metrics"]}
    # one bar chart per metric, the unified-score chart, a length histogram per generation task
    assert len(parser.images) == len(metric_keys) + 1 + 1
    captions = " | ".join(parser.captions)
    for task in TASKS_USED:
        assert f"{task} metrics" in captions
    for task in ("misinfo_politifact", "hate", "sentiment"):
        for name in ("model-a", "model-b"):
            assert f"{task} confusion matrix, {name}" in captions
    assert "Unified scores" in captions and "Methods" in captions and "Runs" in captions
    assert re.search(r"METEOR: (with|without) WordNet", page)


def test_report_is_deterministic(runs, report, tmp_path):
    write_report(list(runs), tmp_path, ReportSettings(n_boot=N_BOOT, seed=0, fast=True))
    for name in ("report.json", "report.md", "report.html"):
        assert (tmp_path / name).read_bytes() == (report / name).read_bytes(), name


def test_report_cli(runs, tmp_path):
    result = CliRunner().invoke(app, ["report", *map(str, runs), "--out", str(tmp_path), "--bootstrap", "20",
                                      "--no-embeddings"])
    assert result.exit_code == 0, result.output
    assert {p.name for p in tmp_path.iterdir()} >= {"report.json", "report.md", "report.html"}


def test_ocr_normalisation_is_documented(report):
    data = json.loads((report / "report.json").read_text())
    assert any(note.startswith("OCR: OCR text is normalised") for note in data["notes"])
