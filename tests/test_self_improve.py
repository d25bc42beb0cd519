"""Self-improvement on a tiny model: every round logged, the similarity table, the plot, resuming."""

from __future__ import annotations

import json
from pathlib import Path

import bert_score
import numpy as np
import pytest
import torch

from mmsoc.models.base import GenerationSettings
from mmsoc.models.backends.hf import HFModel
from mmsoc.tasks.data import load_examples
from mmsoc.runners.finetune.self_improve import REVISE_TEMPLATE, run_self_improve
from mmsoc.runners.finetune.data import answer_text
from mmsoc.tasks.registry import TASKS
from mmsoc.media.sentences import default_text_encoder_path, load_sentence_encoder

ROUNDS = 6


@pytest.fixture(scope="module")
def run(tiny_llava, tmp_path_factory):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("self_improve")
    backend = HFModel(str(tiny_llava))
    examples = load_examples("humor", "sample", "test", limit=4).examples
    settings = GenerationSettings(max_new_tokens=5)
    metrics = run_self_improve(backend, examples, TASKS["humor"].prompt, "mmsoc-v1", root / "run", ROUNDS, settings,
                               seed=1, batch_size=3)
    yield backend, examples, settings, root / "run", metrics
    torch.set_num_threads(threads)


def _rows(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "predictions.jsonl").read_text().splitlines()]


def test_every_round_is_logged_with_its_prompt(run):
    _, examples, _, folder, _ = run
    rows = _rows(folder)
    assert sorted((r["round"], r["id"]) for r in rows) == sorted((n, e.id) for n in range(1, ROUNDS + 1) for e in examples)
    answers = {(r["round"], r["id"]): r["raw"] for r in rows}
    for row in rows:
        assert row["reference"] == answer_text("humor", next(e.label for e in examples if e.id == row["id"]))
        if row["round"] == 1:
            assert "previous answer" not in row["prompt"]
        else:
            revise = REVISE_TEMPLATE.format(previous=answers[(row["round"] - 1, row["id"])],
                                            instruction=TASKS["humor"].prompt)
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
    a, b = vectors[: len(ids)], vectors[len(ids):]
    cosine = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    assert metrics["adjacent"][0]["sentence_cosine"] == pytest.approx(float(cosine.mean()), abs=1e-5)

    def bigrams(text: str) -> set:
        words = text.lower().split()
        return set(zip(words, words[1:]))

    jaccard = [len(bigrams(x) & bigrams(y)) / len(bigrams(x) | bigrams(y)) if bigrams(x) | bigrams(y) else 0.0
               for x, y in zip(first, second)]
    assert metrics["adjacent"][0]["bigram"] == pytest.approx(float(np.mean(jaccard)))
    assert all(0.0 <= r["bertscore"] <= 1.0 + 1e-6 for r in metrics["adjacent"] + metrics["reference"])
    keep = [i for i, (x, y) in enumerate(zip(first, second)) if x.strip() and y.strip()]  # empty pairs score 0
    f1 = np.zeros(len(ids))
    if keep:
        _, _, scores = bert_score.score([first[i] for i in keep], [second[i] for i in keep],
                                        model_type=default_text_encoder_path(), num_layers=6)
        f1[keep] = scores.double().numpy()
    assert metrics["adjacent"][0]["bertscore"] == pytest.approx(float(f1.mean()), abs=1e-5)
    assert len(metrics["success_rate"]) == ROUNDS
    assert (folder / "similarity.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_rerun_resumes_without_new_rows_and_refuses_other_settings(run):
    backend, examples, settings, folder, metrics = run
    before = (folder / "predictions.jsonl").read_bytes()
    again = run_self_improve(backend, examples, TASKS["humor"].prompt, "mmsoc-v1", folder, ROUNDS, settings, seed=1,
                             batch_size=2)
    assert (folder / "predictions.jsonl").read_bytes() == before and again == metrics
    with pytest.raises(ValueError, match="different self-improvement run"):
        run_self_improve(backend, examples, TASKS["humor"].prompt, "mmsoc-v1", folder, ROUNDS, settings, seed=2)
