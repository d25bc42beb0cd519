"""The MM-Soc metrics as Hugging Face `evaluate` modules, loaded offline from the package folder, give exactly
the metrics.json of `mmsoc score` on the same predictions."""

from __future__ import annotations

import json

import evaluate
import pytest
from typer.testing import CliRunner

from mmsoc.cli import app
from mmsoc.metrics import evaluate_modules

CASES = {  # module -> (task, rows of id, prediction, reference, compute kwargs)
    "mmsoc_classification": (
        "sentiment",
        [
            ("1", "positive", "positive"),
            ("2", None, "neutral"),
            ("3", "negative", "neutral"),
            ("4", "neutral", "neutral"),
        ],
        {},
    ),
    "mmsoc_tagging": (
        "tagging",
        [
            ("a", ["music", "pop_music"], ["music"]),
            ("b", [], ["sport", "tennis"]),
            ("c", ["film", "not_a_topic"], ["film", "jazz"]),
        ],
        {},
    ),
    "mmsoc_ocr": (
        "ocr",
        [
            ("hateful_memes/1", '"When you SEE it"', "when you see it"),
            ("hateful_memes/2", None, "nothing read"),
            ("memotion/x.jpg", "okay", "ok"),
            ("memotion/y.jpg", '"a b c d"', "a b c e"),
        ],
        {},
    ),
    "mmsoc_generation": (
        "social_context",
        [
            ("1", "A red cat sits on the mat.", "The cat sat on a red mat."),
            ("2", "", "two dogs play"),
            ("3", "people celebrate together", "a festival with people"),
        ],
        {},
    ),
}


@pytest.fixture(scope="module")
def load(tmp_path_factory):
    """``evaluate.load`` of a packaged module, offline, with evaluate's caches in a temporary folder (one for
    the module: evaluate imports its copies as one top-level package from the first folder it was given)."""
    root = tmp_path_factory.mktemp("evaluate")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(evaluate.config, "HF_MODULES_CACHE", root / "modules")
        patch.setattr(evaluate.config, "HF_METRICS_CACHE", root / "metrics")
        patch.setattr(evaluate.config, "HF_EVALUATE_OFFLINE", True)
        yield lambda name: evaluate.load(evaluate_modules.path(name), cache_dir=str(root / "cache"))


def _mmsoc_score(tmp_path, task: str, rows: list[tuple], *options: str) -> dict:
    path = tmp_path / f"{task}.jsonl"
    path.write_text("".join(json.dumps({"id": i, "prediction": p, "reference": r}) + "\n" for i, p, r in rows))
    result = CliRunner().invoke(
        app,
        [
            "score",
            "--task",
            task,
            "--predictions",
            str(path),
            "--out",
            str(tmp_path / task),
            "--bootstrap",
            "0",
            *options,
        ],
    )
    assert result.exit_code == 0, result.output
    return json.loads((tmp_path / task / "metrics.json").read_text())


@pytest.mark.filterwarnings("ignore::UserWarning:nltk.translate.bleu_score")
@pytest.mark.parametrize("name", sorted(CASES))
def test_module_equals_mmsoc_score(name, load, tmp_path):
    task, rows, _ = CASES[name]
    kwargs = {"task": task} if name in ("mmsoc_classification", "mmsoc_generation") else {}
    if name == "mmsoc_ocr":
        kwargs["ids"] = [i for i, _, _ in rows]
    options = ("--fast-metrics",) if name == "mmsoc_generation" else ()
    if name == "mmsoc_generation":
        kwargs["fast"] = True
    module = load(name)
    got = module.compute(predictions=[p for _, p, _ in rows], references=[r for _, _, r in rows], **kwargs)
    expected = _mmsoc_score(tmp_path, task, rows, *options)
    assert json.loads(json.dumps(got)) == expected
    assert len(expected) > 5


def test_tagging_module_takes_comma_separated_strings(load, tmp_path):
    got = load("mmsoc_tagging").compute(predictions=["music, pop_music", ""], references=["music", "sport,tennis"])
    rows = [("a", "music, pop_music", ["music"]), ("b", "", ["sport", "tennis"])]
    assert json.loads(json.dumps(got)) == _mmsoc_score(tmp_path, "tagging", rows)


def test_ocr_module_without_ids_scores_the_items_together(load, tmp_path):
    _, rows, _ = CASES["mmsoc_ocr"]
    got = load("mmsoc_ocr").compute(predictions=[p for _, p, _ in rows], references=[r for _, _, r in rows])
    pooled = [(str(k), p, r) for k, (_, p, r) in enumerate(rows)]
    assert json.loads(json.dumps(got)) == _mmsoc_score(tmp_path, "ocr", pooled)


def test_generation_module_with_embedding_metrics(load, tmp_path):
    _, rows, _ = CASES["mmsoc_generation"]
    got = load("mmsoc_generation").compute(
        predictions=[p for _, p, _ in rows], references=[r for _, _, r in rows], task="image_description"
    )
    expected = _mmsoc_score(tmp_path, "image_description", rows)
    assert "bertscore_f1" in expected and "embedding_similarity" in expected
    assert json.loads(json.dumps(got)) == expected


def test_wrong_task_kind_and_unknown_module_are_clear_errors(load):
    with pytest.raises(ValueError, match="is a ocr task; this module scores classification"):
        load("mmsoc_classification").compute(predictions=["x"], references=["y"], task="ocr")
    with pytest.raises(ValueError, match="unknown evaluate module 'mmsoc_bleu'"):
        evaluate_modules.path("mmsoc_bleu")
