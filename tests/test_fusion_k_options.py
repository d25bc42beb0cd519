"""The T5-fusion model (``desiq fusion train``, ``desiq fusion eval``, ``--probe fusion``) on files of three and five
options without media: text inputs only, configurations AK and A2, chance 1/K."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from media_fixtures import build_tiny_bert, build_tiny_t5
from test_mcqa_generic import options_file
from typer.testing import CliRunner

from desiq.cli import app
from desiq.formats import read_source
from desiq.fusion import FusionConfig, FusionProbe, train_fusion
from desiq.probe_table import run_probe
from desiq.probes import make_probe
from desiq.records import in_config


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    torch.set_num_threads(1)
    d = tmp_path_factory.mktemp("k_options")
    files = {k: options_file(d, k) for k in (3, 5)}
    items = {k: read_source(path).items for k, path in files.items()}
    corpus = [f"question: {x.question} answer: " + " ".join(x.options) for k in items for x in items[k]]
    return {"dir": d, "files": files, "items": items, "t5": build_tiny_t5(d / "t5", corpus), "corpus": corpus}


def _train(env, out, *extra: str):
    args = ["fusion", "train", "--architecture", "ours", "--data", str(env["files"][3]), "--backbone", str(env["t5"])]
    return CliRunner().invoke(app, [*args, "--out", str(out), "--epochs", "1", "--lr", "1e-3", "--seed", "0", *extra])


def test_a_three_option_file_trains_and_evaluates_as_a3_with_chance_a_third(env, tmp_path):
    trained = _train(env, tmp_path / "model", "--inputs", "q+a")
    assert trained.exit_code == 0, trained.output
    assert "q+a A3: dev A3 " in trained.stdout and ", A2 " in trained.stdout
    metrics = json.loads((tmp_path / "model" / "metrics.json").read_text())
    assert (metrics["config"], list(metrics["dev"])) == ("A3", ["A3", "A2"])
    assert metrics["chance"] == {"A3": pytest.approx(1 / 3), "A2": 0.5}
    assert metrics["n_train"] + metrics["n_dev"] == 96
    assert json.loads((tmp_path / "model" / "fusion_config.json").read_text())["config"] == "A3"

    run = tmp_path / "run"
    evaluated = CliRunner().invoke(
        app, ["fusion", "eval", "--model", str(tmp_path / "model"), "--data", str(env["files"][3]), "--out", str(run)]
    )
    assert evaluated.exit_code == 0, evaluated.output
    assert evaluated.stdout.startswith(f"{env['files'][3]}: A3 ")
    rows = [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
    result = json.loads((run / "metrics.json").read_text())
    assert result["n"] == len(rows) == 96 and result["chance"] == {"A3": pytest.approx(1 / 3), "A2": 0.5}
    assert all(len(r["scores"]) == 3 and r["pred"] in (0, 1, 2) and r["answer_idx"] in (0, 1, 2) for r in rows)
    assert result["A3"] == pytest.approx(np.mean([r["pred"] == r["answer_idx"] for r in rows]))
    pairs = [r["scores"][r["answer_idx"]] > s for r in rows for j, s in enumerate(r["scores"]) if j != r["answer_idx"]]
    assert len(pairs) == 2 * 96 and result["A2"] == pytest.approx(np.mean(pairs))


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--inputs", "q+a+v"], "need media (video)"),
        (["--inputs", "q+a", "--choices", "A4"], "--choices A4: these questions have A3, A2"),
    ],
)
def test_media_inputs_and_a_foreign_config_are_refused_in_one_line(env, tmp_path, extra, message):
    result = _train(env, tmp_path / "model", *extra)
    assert result.exit_code == 2 and message in result.output and not (tmp_path / "model").exists()
    assert "Traceback" not in result.output


def test_the_fusion_probe_reports_a3_and_a2_at_their_chance(env):
    items = env["items"][3]
    probe = make_probe("fusion", backbone=str(env["t5"]), epochs=1, media_root=None, audio_encoder="logmel")
    report = run_probe(probe, items[:32], items[72:], "q+a", seed=0)
    cells = {(r.perturbation, r.config): r for r in report.results}
    assert {c for _, c in cells} == {"A3", "A2"}
    assert cells["original", "A3"].chance == pytest.approx(1 / 3) and cells["original", "A2"].chance == 0.5
    assert (cells["original", "A3"].n, cells["original", "A2"].n) == (24, 48)
    with pytest.raises(ValueError, match=r"inputs a\+t need media \(transcript\).*use inputs a or q\+a"):
        probe.fit(items[:32], "a+t", seed=0)


@pytest.mark.parametrize("architecture", ["ours", "paper"])
def test_five_options_train_on_all_five_or_on_pairs(env, architecture):
    items = env["items"][5]
    text = str(build_tiny_bert(env["dir"] / "bert", env["corpus"])) if architecture == "paper" else None
    for config in ("A5", "A2"):
        cfg = FusionConfig(
            str(env["t5"]), "q+a", config, {}, lr=1e-3, epochs=1, seed=0, architecture=architecture, text_encoder=text
        )
        scorer, dev, features = train_fusion(items[:24], items[84:], None, cfg)
        assert list(dev) == ["A5", "A2", "epoch", "history"] and 0 <= dev["A5"] <= 1
        scores = scorer.score(items[84:], features)
        assert [len(s) for s in scores] == [5] * 12
        assert [len(s) for s in scorer.score(in_config(items[84:], "A2"), features)] == [2] * 48
    with pytest.raises(ValueError, match="config must be one of A5, A2"):
        train_fusion(items[:24], items[84:], None, FusionConfig(str(env["t5"]), "q+a", "A4", {}))


def test_the_text_probe_on_five_options_scores_five(env):
    items = env["items"][5]
    probe = FusionProbe(str(env["t5"]), None, epochs=1, lr=1e-3, name="t5", media=False)
    probe.fit(items[:24], "a", seed=0)
    assert [len(s) for s in probe.score(items[84:])] == [5] * 12
