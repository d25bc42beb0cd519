"""The T5-fusion model on the embedded sample: media inputs help, save/reload, missing media, several processes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
from media_fixtures import build_tiny_open_clip, build_tiny_t5
from processes import accelerate_launch
from typer.testing import CliRunner

from desiq.formats.siq2 import read_siq2, write_siq2
from desiq.fusion import FusionConfig, FusionProbe, FusionScorer, accuracy, default_encoders, train_fusion
from desiq.inputs import InputSetting
from desiq.records import to_a2
from desiq.sample import write_sample
from desiq.splits import build_split
from mmsoc.media import FeatureCache

REPO = Path(__file__).parents[1]


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    torch.set_num_threads(1)
    d = tmp_path_factory.mktemp("fusion")
    root = write_sample(d / "sample")
    train, val = read_siq2(root / "qa" / "qa_train.json"), read_siq2(root / "qa" / "qa_val.json")
    corpus = [f"question: {x.question} answer: " + " ".join(x.options) for x in train + val]
    return {
        "root": root,
        "train": train,
        "val": val,
        "t5": build_tiny_t5(d / "t5", corpus),
        "oc": build_tiny_open_clip(d / "oc"),
        "cache": FeatureCache(d / "cache" / "features"),
        "dir": d,
    }


def _config(env, inputs, **kw) -> FusionConfig:
    settings = dict(lr=1e-3, epochs=4, patience=3, batch_size=8, seed=0)
    settings.update(kw)
    encoders = default_encoders(str(env["oc"]), None, num_frames=4, audio_model="logmel")
    return FusionConfig(str(env["t5"]), inputs, encoders=encoders, **settings)


@pytest.fixture(scope="module")
def trained(env):
    """On the sample's DeSIQ_d split (no answer-only bias): options alone, and with each medium.

    The frames come from a random-init tiny ViT and the audio is log-mel: nothing pretrained knows
    the emotions, the model has to learn the colour / pitch from the training questions.
    """
    train = build_split(env["train"], "d", 0).items
    dev = build_split(env["val"], "d", 1).items
    out = {}
    for inputs in ("a", "q+a+t", "q+a+v", "q+a+s"):
        out[inputs] = train_fusion(train, dev, env["root"], _config(env, inputs), env["cache"])
    return out, dev


def test_answer_only_is_near_chance_on_the_desiq_split(trained):
    runs, dev = trained
    assert runs["a"][1]["A4"] < 0.45  # chance is 25% once the split is debiased
    assert all(len(item.options) == 4 for item in dev)


@pytest.mark.parametrize("inputs", ["q+a+t", "q+a+v", "q+a+s"])
def test_each_medium_beats_answer_only_on_the_desiq_split(trained, inputs):
    runs, _ = trained
    assert runs[inputs][1]["A4"] > runs["a"][1]["A4"] + 0.25
    assert runs[inputs][1]["A2"] > runs["a"][1]["A2"] + 0.15


def test_saved_model_reloads_every_trained_part_with_identical_predictions(trained, env, tmp_path):
    runs, dev = trained
    scorer, metrics, features = runs["q+a+t"]
    before = scorer.score(dev, features)
    answers = [x.answer_idx for x in dev]
    assert accuracy(answers, before)["A4"] == metrics["A4"]  # the best epoch's weights were restored
    scorer.save(tmp_path / "model")
    loaded = FusionScorer.load(tmp_path / "model")
    after = loaded.score(dev, loaded.features(dev, env["root"], env["cache"]))
    for a, b in zip(before, after):
        np.testing.assert_array_equal(a, b)
    one_by_one = scorer.score(dev, features, batch_size=1)  # padding must not change any score
    np.testing.assert_allclose(np.concatenate(one_by_one), np.concatenate(before), atol=1e-5)
    head = dict(loaded.model.trained_parts())
    assert {"head.weight", "modality.weight"} <= head.keys() and any(k.startswith("project.transcript") for k in head)


def test_training_is_seeded_and_a2_config_trains_on_pairs(env):
    train, dev = env["train"][:40], env["val"][:12]
    cfg = _config(env, "q+a+s", epochs=1, config="A2")
    s1, _, f1 = train_fusion(train, dev, env["root"], cfg, env["cache"])
    s2, _, _ = train_fusion(train, dev, env["root"], cfg, env["cache"])
    for a, b in zip(s1.score(dev, f1), s2.score(dev, f1)):
        np.testing.assert_array_equal(a, b)
    pairs = to_a2(dev)
    assert all(len(s) == 2 for s in s1.score(pairs, f1))


def test_input_settings_parse_and_reject_bad_letters():
    assert InputSetting.parse("s+a+q+v").name == "q+a+v+s"
    assert InputSetting.parse("a+t").media == ("transcript",)
    for bad in ("q+t", "a+x", "a+a"):
        with pytest.raises(ValueError, match="letters"):
            InputSetting.parse(bad)


def test_fusion_probe_backend_scores_every_option(env):
    probe = FusionProbe(
        str(env["t5"]),
        env["root"],
        epochs=2,
        lr=1e-3,
        encoders=default_encoders(str(env["oc"]), None, 4),
        cache_dir=env["cache"].root,
    )
    probe.fit(env["train"][:30], "a+t", seed=0)
    items = env["val"][:6]
    scores = probe.score(items)
    assert [len(s) for s in scores] == [4] * 6
    assert [len(s) for s in probe.score(to_a2(items))] == [2] * 18
    assert probe.option_features(items).shape == (24, 64)


@pytest.fixture(scope="module")
def damaged(env):
    """The sample with one truncated mp4 and one deleted transcript, trained through the CLI."""
    from desiq.cli import app

    root = shutil.copytree(env["root"], env["dir"] / "damaged")
    first, second = env["train"][1].video, env["val"][0].video
    mp4 = root / "video" / f"{first}.mp4"
    mp4.write_bytes(mp4.read_bytes()[:300])
    (root / "transcript" / f"{second}.vtt").unlink()
    model = env["dir"] / "model"
    result = CliRunner().invoke(
        app,
        [
            "fusion",
            "train",
            "--architecture",
            "ours",
            "--audio-encoder",
            "logmel",
            "--data",
            str(root),
            "--inputs",
            "q+a+t+v+s",
            "--backbone",
            str(env["t5"]),
            "--out",
            str(model),
            "--epochs",
            "1",
            "--seed",
            "0",
            "--lr",
            "1e-3",
            "--video-encoder",
            str(env["oc"]),
            "--video-pretrained",
            "none",
            "--num-frames",
            "4",
            "--cache-dir",
            str(env["cache"].root),
        ],
    )
    assert result.exit_code == 0, result.output
    n_first = sum(x.video == first for x in env["train"])
    n_second = sum(x.video == second for x in env["val"])
    return root, model, n_first, n_second


def test_corrupt_video_and_missing_transcript_are_masked_and_counted(damaged, env, tmp_path):
    from desiq.cli import app

    root, model, n_video, n_transcript = damaged
    metrics = json.loads((model / "metrics.json").read_text())
    assert metrics["missing"] == {"video": n_video, "audio": 0, "transcript": n_transcript}  # audio: the wav
    assert metrics["inputs"] == "q+a+t+v+s" and set(metrics["dev"]) == {"A4", "A2"}
    result = CliRunner().invoke(
        app,
        [
            "fusion",
            "eval",
            "--model",
            str(model),
            "--data",
            str(root),
            "--split",
            "val",
            "--condition",
            "RIWI",
            "--out",
            str(tmp_path / "ev"),
            "--cache-dir",
            str(env["cache"].root),
        ],
    )
    assert result.exit_code == 0, result.output
    ev = json.loads((tmp_path / "ev" / "metrics.json").read_text())
    rows = [json.loads(line) for line in (tmp_path / "ev" / "predictions.jsonl").read_text().splitlines()]
    assert ev["n"] == len(rows) == len(env["val"]) and ev["missing"]["transcript"] == n_transcript
    assert ev["missing"]["video"] == 0
    assert sum(r["masked"] == ["transcript"] for r in rows) == n_transcript
    assert ev["A4"] == pytest.approx(np.mean([np.argmax(r["scores"]) == r["answer_idx"] for r in rows]))
    pairs = [r["scores"][r["answer_idx"]] > s for r in rows for j, s in enumerate(r["scores"]) if j != r["answer_idx"]]
    assert ev["A2"] == pytest.approx(np.mean(pairs))
    assert all(r["correct"] == (r["pred"] == r["answer_idx"]) for r in rows)


def test_fusion_probe_command_runs_end_to_end_with_a_local_backbone(env, tmp_path, monkeypatch):
    from desiq.cli import app

    monkeypatch.setenv("MMSOC_CACHE", str(env["cache"].root.parent))  # the sample is rebuilt byte for byte: cache hits
    out = tmp_path / "probe"
    result = CliRunner().invoke(
        app,
        [
            "probe",
            "--probe",
            "fusion",
            "--inputs",
            "a+t",
            "--backbone",
            str(env["t5"]),
            "--epochs",
            "1",
            "--no-tsne",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads((out / "probe.json").read_text())
    assert (report["probe"], report["inputs"], report["n_eval"]) == ("fusion", "a+t", len(env["val"]))
    cells = {(r["data"], r["perturbation"], r["config"]): r for r in report["results"]}
    perturbations = ("original", "NCAQ", "RIWI", "RIWA", "RAWI", "RAWA", "SHUF")
    expected = {("original", p, c) for p in perturbations for c in ("A4", "A2")}
    splits = {(d, "original", c) for d in ("desiq_d", "desiq_s") for c in ("A4", "A2")}
    assert cells.keys() == expected | splits
    assert cells["original", "original", "A2"]["n"] == 3 * cells["original", "original", "A4"]["n"]
    # NCAQ: a fusion model trained and scored on the options only, no transcript
    assert {r["inputs"] for r in report["results"] if r["perturbation"] == "NCAQ"} == {"a"}
    assert {r["inputs"] for r in report["results"] if r["perturbation"] != "NCAQ"} == {"a+t"}
    assert (out / "sample" / "transcript" / f"{env['val'][0].video}.vtt").is_file()


DRIVER = """import json, sys
from desiq.cli import app
for args in json.loads(sys.argv[1]):
    app(args, standalone_mode=False)
"""


def _launch(commands: list[list[str]], folder: Path) -> subprocess.CompletedProcess:
    """``accelerate launch`` on two CPU processes of the ``desiq`` commands, one after the other
    (in one launch: the processes import torch once)."""
    (folder / "driver.py").write_text(DRIVER)
    launch = [
        *accelerate_launch(),
        str(folder / "driver.py"),
        json.dumps(commands),
    ]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": ""}
    return subprocess.run(launch, capture_output=True, text=True, env=env, cwd=REPO)


@pytest.mark.slow
def test_two_process_training_and_evaluation(damaged, env, tmp_path):
    """Two processes train one model (metrics written once, by rank 0) whose evaluation under two
    processes equals the single-process one."""
    from desiq.cli import app

    damaged_root = damaged[0]
    root = tmp_path / "data"  # a third of the damaged sample's questions, the same media
    for split, items in (("train", env["train"][:64]), ("val", env["val"][:27])):
        write_siq2(root / "qa" / f"qa_{split}.json", items)
    for folder in ("video", "audio", "transcript"):
        (root / folder).symlink_to(damaged_root / folder, target_is_directory=True)
    model, cache = tmp_path / "model", str(env["cache"].root)
    train = [
        "fusion",
        "train",
        "--architecture",
        "ours",
        "--audio-encoder",
        "logmel",
        "--data",
        str(root),
        "--inputs",
        "q+a+t+v+s",
        "--backbone",
        str(env["t5"]),
        "--out",
        str(model),
        "--epochs",
        "1",
        "--seed",
        "0",
        "--lr",
        "1e-3",
        "--video-encoder",
        str(env["oc"]),
        "--video-pretrained",
        "none",
        "--num-frames",
        "4",
        "--cache-dir",
        cache,
    ]
    evaluate = [
        "fusion",
        "eval",
        "--model",
        str(model),
        "--data",
        str(root),
        "--split",
        "val",
        "--cache-dir",
        cache,
        "--batch-size",
        "5",
    ]
    launched = _launch([train, [*evaluate, "--out", str(tmp_path / "two")]], tmp_path)
    assert launched.returncode == 0, launched.stdout[-1500:] + launched.stderr[-3000:]
    metrics = json.loads((model / "metrics.json").read_text())
    assert metrics["processes"] == 2
    assert (launched.stdout + launched.stderr).count("dev A4") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "driver.py", "model", "two"]  # no partial folder
    both = env["train"][:64] + env["val"][:27]
    assert metrics["missing"] == {
        "video": sum(x.video == env["train"][1].video for x in both),
        "audio": 0,
        "transcript": sum(x.video == env["val"][0].video for x in both),
    }
    assert metrics["missing"]["video"] > 0 and metrics["missing"]["transcript"] > 0
    reloaded = FusionScorer.load(model)
    dev = read_siq2(root / "qa" / "qa_val.json")
    scores = reloaded.score(dev, reloaded.features(dev, root, env["cache"]))
    assert accuracy([x.answer_idx for x in dev], scores)["A4"] == pytest.approx(metrics["dev"]["A4"])

    single = CliRunner().invoke(app, [*evaluate, "--out", str(tmp_path / "one")])
    assert single.exit_code == 0, single.output
    one = [json.loads(x) for x in (tmp_path / "one" / "predictions.jsonl").read_text().splitlines()]
    two = [json.loads(x) for x in (tmp_path / "two" / "predictions.jsonl").read_text().splitlines()]
    assert [r["qid"] for r in one] == [r["qid"] for r in two] == [x.qid for x in dev]
    assert [r["pred"] for r in one] == [r["pred"] for r in two]
    assert [r["masked"] for r in one] == [r["masked"] for r in two]
    np.testing.assert_allclose([r["scores"] for r in one], [r["scores"] for r in two], atol=1e-5)
    m1, m2 = (json.loads((tmp_path / k / "metrics.json").read_text()) for k in ("one", "two"))
    assert (m1.pop("processes"), m2.pop("processes")) == (1, 2)
    assert m1 == m2
