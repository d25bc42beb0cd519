"""Self-improvement on a tiny model: every round logged, the similarity table, the plot, resuming; the run
folder's identity check and problems; reports that show each round as a run of its own."""

from __future__ import annotations

import json
from pathlib import Path

import bert_score
import numpy as np
import pytest
import torch
from metric_references import lucene_ngram_distance
from typer.testing import CliRunner

from mmsoc.cli import app
from mmsoc.core.records import Example
from mmsoc.core.runfolder import RunFolderError
from mmsoc.media.sentences import default_text_encoder_path, load_sentence_encoder
from mmsoc.models.backends.hf import HFModel
from mmsoc.models.backends.random_answers import RandomModel
from mmsoc.models.base import GenerationSettings
from mmsoc.runners.finetune.data import answer_text
from mmsoc.runners.finetune.self_improve import REVISE_TEMPLATE, run_self_improve
from mmsoc.tasks import score_task
from mmsoc.tasks.data import load_examples
from mmsoc.tasks.registry import TASKS

ROUNDS = 6


@pytest.fixture(scope="module")
def run(tiny_llava, tmp_path_factory):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("self_improve")
    backend = HFModel(str(tiny_llava))
    examples = load_examples("humor", "sample", "test", limit=4).examples
    settings = GenerationSettings(max_new_tokens=5)
    metrics = run_self_improve(
        backend, examples, TASKS["humor"].prompt, "mmsoc-v1", root / "run", ROUNDS, settings, seed=1, batch_size=3
    )
    yield backend, examples, settings, root / "run", metrics
    torch.set_num_threads(threads)


def _rows(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "predictions.jsonl").read_text().splitlines()]


def test_every_round_is_logged_with_its_prompt(run):
    _, examples, _, folder, _ = run
    rows = _rows(folder)
    expected = sorted((n, e.id) for n in range(1, ROUNDS + 1) for e in examples)
    assert sorted((r["round"], r["id"]) for r in rows) == expected
    answers = {(r["round"], r["id"]): r["raw"] for r in rows}
    for row in rows:
        label = next(e.label for e in examples if e.id == row["id"])
        assert (row["reference"], row["reference_text"]) == (label, answer_text("humor", label))
        if row["round"] == 1:
            assert "previous answer" not in row["prompt"]
        else:
            revise = REVISE_TEMPLATE.format(
                previous=answers[(row["round"] - 1, row["id"])], instruction=TASKS["humor"].prompt
            )
            assert row["prompt"].endswith(revise)


def test_similarity_table_matches_an_independent_computation(run):
    _, examples, _, folder, metrics = run
    assert [(r["from"], r["to"]) for r in metrics["adjacent"]] == [(n, n + 1) for n in range(1, ROUNDS)]
    assert [r["round"] for r in metrics["reference"]] == list(range(1, ROUNDS + 1))
    assert json.loads((folder / "metrics.json").read_text()) == json.loads(json.dumps(metrics))
    rows = _rows(folder)
    by = {(r["round"], r["id"]): r["raw"] for r in rows}
    ids = [e.id for e in examples]
    first, second = [by[(1, i)] for i in ids], [by[(2, i)] for i in ids]
    vectors = load_sentence_encoder(None).encode(first + second)
    a, b = vectors[: len(ids)], vectors[len(ids) :]
    cosine = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    assert metrics["adjacent"][0]["sentence_cosine"] == pytest.approx(float(cosine.mean()), abs=1e-5)

    # The paper's bigram similarity: Kondrak's character-bigram similarity (Lucene's NGramDistance, rewritten
    # line by line in metric_references).
    kondrak = [1 - lucene_ngram_distance(x, y) for x, y in zip(first, second)]
    assert metrics["adjacent"][0]["bigram"] == pytest.approx(float(np.mean(kondrak)))
    assert all(0.0 <= r["bertscore"] <= 1.0 + 1e-6 for r in metrics["adjacent"] + metrics["reference"])
    keep = [i for i, (x, y) in enumerate(zip(first, second)) if x.strip() and y.strip()]  # empty pairs score 0
    f1 = np.zeros(len(ids))
    if keep:
        _, _, scores = bert_score.score(
            [first[i] for i in keep], [second[i] for i in keep], model_type=default_text_encoder_path(), num_layers=6
        )
        f1[keep] = scores.double().numpy()
    assert metrics["adjacent"][0]["bertscore"] == pytest.approx(float(f1.mean()), abs=1e-5)
    assert len(metrics["success_rate"]) == ROUNDS
    assert (folder / "similarity.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_rerun_resumes_without_new_rows_and_refuses_other_settings(run):
    backend, examples, settings, folder, metrics = run
    before = (folder / "predictions.jsonl").read_bytes()
    again = run_self_improve(
        backend, examples, TASKS["humor"].prompt, "mmsoc-v1", folder, ROUNDS, settings, seed=1, batch_size=2
    )
    assert (folder / "predictions.jsonl").read_bytes() == before and again == metrics
    with pytest.raises(RunFolderError, match=r"different run.*seed: 1 there, 2 now"):
        run_self_improve(backend, examples, TASKS["humor"].prompt, "mmsoc-v1", folder, ROUNDS, settings, seed=2)
    assert (folder / "predictions.jsonl").read_bytes() == before


# --- a run folder on the random baseline: killed and resumed, problems, the report -----------------


class CountingRandom(RandomModel):
    """The random baseline, counting the requests it answers."""

    asked = 0

    def generate(self, requests, settings):
        self.asked += len(requests)
        return super().generate(requests, settings)


def _random_run(folder: Path, examples: list, rounds: int = 3, backend: RandomModel | None = None) -> dict:
    return run_self_improve(
        backend or RandomModel(),
        examples,
        TASKS["hate"].prompt,
        "mmsoc-v1",
        folder,
        rounds,
        GenerationSettings(),
        seed=0,
        batch_size=4,
        meta={"model": "random"},
    )


def test_killed_run_resumes_to_the_same_bytes_and_records_unlabelled_items(tmp_path):
    examples = load_examples("hate", "sample", "test", limit=6).examples
    unlabelled = Example("no-label", "hate", text="?")
    whole = _random_run(tmp_path / "whole", [*examples, unlabelled])
    log = (tmp_path / "whole" / "predictions.jsonl").read_bytes()
    assert len(log.splitlines()) == 3 * len(examples)
    problems = [json.loads(line) for line in (tmp_path / "whole" / "problems.jsonl").read_text().splitlines()]
    assert problems == [{"task": "hate", "id": "no-label", "problem": "no gold label"}]
    killed = tmp_path / "killed"
    killed.mkdir()
    (killed / "config.json").write_bytes((tmp_path / "whole" / "config.json").read_bytes())
    lines = log.splitlines(keepends=True)
    (killed / "predictions.jsonl").write_bytes(b"".join(lines[:8]) + lines[8][:20])  # a kill mid-line in round 2
    backend = CountingRandom()
    assert _random_run(killed, [*examples, unlabelled], backend=backend) == whole
    assert (killed / "predictions.jsonl").read_bytes() == log
    assert backend.asked == 3 * len(examples) - 8  # only what the log lacked (the partial line included)


def test_report_shows_each_round_as_its_own_run(tmp_path):
    examples = load_examples("hate", "sample", "test").examples
    _random_run(tmp_path / "si", examples)
    result = CliRunner().invoke(
        app, ["report", str(tmp_path / "si"), "--out", str(tmp_path / "report"), "--bootstrap", "50", "--fast-metrics"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "report" / "report.json").read_text())
    names = [f"random round {n}" for n in (1, 2, 3)]
    assert [run["name"] for run in data["runs"]] == names
    assert all(run["duplicate_rows"] == 0 and not run["skipped_lines"] for run in data["runs"])
    rows = [json.loads(line) for line in (tmp_path / "si" / "predictions.jsonl").read_text().splitlines()]
    hate = next(entry for entry in data["tasks"] if entry["task"] == "hate")
    for number, name in enumerate(names, start=1):
        mine = [row for row in rows if row["round"] == number]
        assert len(mine) == len(examples)
        expected = score_task("hate", [r["parsed"] for r in mine], [r["reference"] for r in mine], fast=True)
        assert hate["runs"][name]["metrics"]["macro_f1"]["value"] == pytest.approx(expected["macro_f1"])
    assert len({hate["runs"][name]["metrics"]["accuracy"]["value"] for name in names}) > 1  # rounds differ
    pairs = {(c["a"], c["b"]) for c in data["comparisons"] if c["task"] == "hate"}
    assert pairs == {(names[0], names[1]), (names[0], names[2]), (names[1], names[2])}
