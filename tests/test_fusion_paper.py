"""``--architecture paper``: the official DeSIQ Concat model, checked against its forward pass re-written small
from guoxiaoyu-gxy/DeSIQ ``socialiq2/multimodal_model.py`` on tiny models (same weights, same inputs, same
scores), its training rule, loss fix, save/reload and the offline error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from media_fixtures import build_tiny_bert, build_tiny_t5, build_tiny_vit, build_tiny_wav2vec2
from torch import nn
from transformers import AutoModel, AutoTokenizer, T5EncoderModel, ViTImageProcessor, Wav2Vec2FeatureExtractor

from desiq.formats.siq2 import read_siq2
from desiq.fusion.architecture import should_stop
from desiq.fusion.features import MediaFeatures
from desiq.fusion.paper import PaperFusionModel, collate
from desiq.fusion.paper_media import TokenTranscriptEncoder, ViTFrameEncoder, paper_pool
from desiq.fusion.runner import _item_loss
from desiq.inputs import InputSetting
from desiq.records import MCQAItem
from desiq.sample import sample_items, write_sample
from mmsoc.media import AudioEncoder

ENV = {**os.environ, "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": ""}
TRANSCRIPT = (
    "WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nshe says she feels happy today\n\n"
    "00:00:01.000 --> 00:00:02.000\nshe says she feels happy today\n\n"
    "00:00:02.000 --> 00:00:03.000\nthe man nods and smiles back\n"
)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    torch.set_num_threads(1)
    d = tmp_path_factory.mktemp("paper")
    items = sample_items("train") + sample_items("val")
    corpus = [f"{x.question} " + " ".join(x.options) for x in items] + [
        "she says she feels happy today",
        "the man nods and smiles back",
    ]
    return {
        "bert": build_tiny_bert(d / "bert", corpus),
        "vit": build_tiny_vit(d / "vit"),
        "w2v": build_tiny_wav2vec2(d / "w2v"),
        "t5": build_tiny_t5(d / "t5", corpus),
        "dir": d,
    }


# --- the official forward pass, re-written small (multimodal_model.py:102-150, 320-448) -------------------


class OfficialImageModel(nn.Module):
    def __init__(self, vision_model, image_num, tokens):
        super().__init__()
        self.vision_model, self.image_num = vision_model, image_num
        self.avg_pooling = nn.AvgPool2d(kernel_size=(1, tokens))

    def forward(self, x):
        x = self.vision_model(**x).last_hidden_state
        x = x.view(-1, self.image_num, x.shape[1], x.shape[2])
        x = x.permute(0, 3, 1, 2)
        x = self.avg_pooling(x)
        return x.squeeze(3).permute(0, 2, 1)


class OfficialAudioModel(nn.Module):
    def __init__(self, audio_model):
        super().__init__()
        self.audio_model = audio_model
        self.avg_pooling = nn.AvgPool1d(kernel_size=50)

    def forward(self, x):
        x = self.audio_model(**x).last_hidden_state
        x = self.avg_pooling(x.permute(0, 2, 1))
        return x.permute(0, 2, 1)


class OfficialJudge(nn.Module):
    def __init__(self, output_dim):
        super().__init__()
        self.linear1 = nn.Linear(output_dim, 25)
        self.activation = torch.nn.Sigmoid()
        self.linear2 = nn.Linear(25, 1)

    def forward(self, x):
        return self.activation(self.linear2(self.activation(self.linear1(x))))


OFFICIAL_POS = {  # load_data -> selected positions (transcript_num = 50, image_num = frames)
    "qac": lambda n: [49, -1],
    "qtac": lambda n: [49, 49 + 50, -1],
    "qisac": lambda n: [49, 49 + n, 49 + 2 * n, -1],
    "qtisac": lambda n: [49, 49 + 50, 49 + 50 + n, 49 + 50 + 2 * n, -1],
}
OURS = {"qac": "q+a", "qtac": "q+a+t", "qisac": "q+a+v+s", "qtisac": "q+a+t+v+s"}


@torch.no_grad()
def official_scores(load_data, ours, tiny, item, transcript, frames, wave):
    tokenizer = AutoTokenizer.from_pretrained(tiny["bert"])
    text_model = ours.text_encoder
    width = ours.encoder.config.d_model
    text_projector = nn.Linear(text_model.config.hidden_size, width)
    text_projector.load_state_dict(ours.text_projector.state_dict())
    image_projector, audio_projector = (nn.Linear(d, width) for d in (40, 32))
    positions = OFFICIAL_POS[load_data](len(frames))
    judge = OfficialJudge(len(positions) * width)
    judge.linear1.load_state_dict(ours.head[0].state_dict())
    judge.linear2.load_state_dict(ours.head[2].state_dict())

    def text(s, length):
        ids = tokenizer([s], return_tensors="pt", max_length=length, truncation=True, padding="max_length").input_ids
        return text_model(ids).last_hidden_state

    q = text_projector(text(item.question, 50))
    answers = [text_projector(text(a, 50)) for a in item.options]
    segments = [q]
    if "t" in load_data:
        segments.append(
            text_projector(nn.AvgPool1d(kernel_size=10)(text(transcript, 500).permute(0, 2, 1)).permute(0, 2, 1))
        )
    if "i" in load_data:
        image_projector.load_state_dict(ours.project["video"].state_dict())
        audio_projector.load_state_dict(ours.project["audio"].state_dict())
        vit = AutoModel.from_pretrained(tiny["vit"])
        i = ViTImageProcessor.from_pretrained(tiny["vit"])(list(frames), return_tensors="pt")
        segments.append(image_projector(OfficialImageModel(vit, len(frames), 17)(i)))
        s = Wav2Vec2FeatureExtractor.from_pretrained(tiny["w2v"])(wave, sampling_rate=16000, return_tensors="pt")
        segments.append(audio_projector(OfficialAudioModel(AutoModel.from_pretrained(tiny["w2v"]))(s)))
    out = []
    for a_k in answers:
        hidden = ours.encoder(inputs_embeds=torch.cat((*segments, a_k), dim=1)).last_hidden_state
        out.append(judge(hidden[:, positions, :].view(-1, len(positions) * width)))
    return torch.cat(out, dim=1)[0].numpy()


def _ours(tiny, inputs, seed=0):
    dims = {"transcript": 48, "video": 40, "audio": 32}
    keep = {m: dims[m] for m in InputSetting.parse(inputs).media}
    torch.manual_seed(seed)
    return PaperFusionModel(
        T5EncoderModel.from_pretrained(tiny["t5"]), AutoModel.from_pretrained(tiny["bert"]), keep
    ).eval()


def _media(tiny, tmp_path, n_seconds=1.0):
    vtt = tmp_path / "t.vtt"
    vtt.write_text(TRANSCRIPT)
    transcript_encoder = TokenTranscriptEncoder(str(tiny["bert"]))
    transcript = transcript_encoder.load(vtt)
    wave = (0.3 * np.sin(2 * np.pi * 440 * np.arange(int(16000 * n_seconds)) / 16000)).astype(np.float32)
    audio = paper_pool("audio", AudioEncoder(str(tiny["w2v"])).embed([wave])[0])
    frames = np.random.default_rng(1).integers(0, 256, (len(audio), 32, 32, 3), dtype=np.uint8)
    video = ViTFrameEncoder(str(tiny["vit"])).embed([frames])[0]
    return (
        transcript,
        frames,
        wave,
        {"transcript": transcript_encoder.embed([transcript])[0], "video": video, "audio": audio},
    )


@pytest.mark.parametrize("load_data", list(OFFICIAL_POS))
def test_forward_pass_equals_the_official_concat_model(tiny, tmp_path, load_data):
    transcript, frames, wave, arrays = _media(tiny, tmp_path)
    assert transcript == "she says she feels happy today the man nods and smiles back"  # each line once, in order
    item = sample_items("val")[0]
    model = _ours(tiny, OURS[load_data])
    features = MediaFeatures({m: {item.video: a} for m, a in arrays.items()}, {m: {} for m in arrays})
    batch = collate([item], features, model.feature_dims, AutoTokenizer.from_pretrained(tiny["bert"]), True)
    with torch.no_grad():
        ours = torch.sigmoid(model(**batch["inputs"])).numpy()
    expected = official_scores(load_data, model, tiny, item, transcript, frames, wave)
    np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-6)


def test_scores_do_not_depend_on_the_batch(tiny, tmp_path):
    """Items whose audio differs in length, scored together and one by one (the official code: batch 1)."""
    _, _, _, short = _media(tiny, tmp_path, 0.5)
    _, _, _, long = _media(tiny, tmp_path, 1.0)
    items = sample_items("val")[:2]
    features = MediaFeatures(
        {m: {items[0].video: short[m], items[1].video: long[m]} for m in short}, {m: {} for m in short}
    )
    model = _ours(tiny, "q+a+t+v+s")
    tokenizer = AutoTokenizer.from_pretrained(tiny["bert"])
    with torch.no_grad():
        together = model(**collate(items, features, model.feature_dims, tokenizer, True)["inputs"])
        alone = torch.cat(
            [model(**collate([x], features, model.feature_dims, tokenizer, True)["inputs"]) for x in items]
        )
    assert len(short["audio"]) != len(long["audio"])
    np.testing.assert_allclose(together.numpy(), alone.numpy(), atol=1e-5)


def test_loss_is_cross_entropy_over_logits_not_over_sigmoid_outputs():
    logits = torch.tensor([4.0, -4.0, -4.0, -4.0])
    ours = _item_loss(logits, [4], torch.tensor([0])).item()
    assert ours == pytest.approx(np.log(1 + 3 * np.exp(-8)), rel=1e-4)  # float32
    # the official loss: softmax over sigmoid outputs, bounded away from 0 however sure the model is
    p, n = 1 / (1 + np.exp(-4)), 1 / (1 + np.exp(4))
    official = -np.log(np.exp(p) / (np.exp(p) + 3 * np.exp(n)))
    assert official == pytest.approx(0.7627, abs=1e-4) and official > np.log(1 + 3 / np.e)  # its floor, ~0.744
    assert ours < 0.002


def official_stop_epoch(dev_accs, max_epochs=40):
    """multimodal_model.py:626-654: the epoch (0-based) after which the official loop breaks, or the last."""
    dev_acc, decrease_iters = [], 0
    for i, acc_temp in enumerate(dev_accs[:max_epochs]):
        if len(dev_acc) > 0 and dev_acc[-1] > acc_temp:
            decrease_iters += 1
        else:
            decrease_iters = 0
        dev_acc.append(acc_temp)
        if decrease_iters > 4:
            return i
    return min(len(dev_accs), max_epochs) - 1


def test_early_stopping_is_the_official_rule():
    rng = np.random.default_rng(0)
    sequences = [list(np.cumsum(rng.normal(0, 1, 40)).round(1)) for _ in range(300)]
    sequences += [[0.5, 0.4, 0.3, 0.2, 0.1, 0.0, 0.9], [0.5, 0.4, 0.3, 0.2, 0.1, 0.1, 0.0, 0.9]]
    for seq in sequences:
        ours = next((k for k in range(len(seq)) if should_stop(seq[: k + 1], 4, "decrease")), len(seq) - 1)
        assert ours == official_stop_epoch(seq)
    assert official_stop_epoch(sequences[-2]) == 5 and official_stop_epoch(sequences[-1]) == 7


@pytest.fixture(scope="module")
def trained(tiny):
    root = write_sample(tiny["dir"] / "sample")
    model, cache = tiny["dir"] / "model", tiny["dir"] / "cache"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "desiq",
            "fusion",
            "train",
            "--architecture",
            "paper",
            "--data",
            str(root),
            "--inputs",
            "q+a+t+v+s",
            "--backbone",
            str(tiny["t5"]),
            "--text-encoder",
            str(tiny["bert"]),
            "--video-encoder",
            str(tiny["vit"]),
            "--audio-encoder",
            str(tiny["w2v"]),
            "--epochs",
            "1",
            "--lr",
            "1e-3",
            "--seed",
            "0",
            "--out",
            str(model),
            "--cache-dir",
            str(cache),
        ],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=1200,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return root, model, cache, run


def test_cli_trains_the_paper_model_and_evaluate_reloads_it(trained, tiny, tmp_path):
    from desiq.fusion import FusionScorer

    root, model, cache, run = trained
    metrics = json.loads((model / "metrics.json").read_text())
    config = json.loads((model / "fusion_config.json").read_text())
    assert metrics["architecture"] == config["architecture"] == "paper" and "architecture paper" in run.stdout
    assert (config["batch_size"], config["patience"], config["text_len"]) == (1, 4, 50)  # the official settings
    assert config["encoders"]["video"]["settings"] == {"encoder": "vit-tokens", "fps": 1.0, "max_frames": 60}
    assert config["encoders"]["transcript"]["settings"] == {"encoder": "text-tokens", "max_length": 500, "window": 10}
    scorer = FusionScorer.load(model)
    assert isinstance(scorer.model, PaperFusionModel)
    dev = read_siq2(root / "qa" / "qa_val.json")
    features = scorer.features(dev, root)
    assert features.dims() == {"transcript": 48, "video": 40, "audio": 32}
    assert len(features.get("video", dev[0].video)) == 2  # a 2-second clip: one frame per second
    out = tmp_path / "ev"
    ev = subprocess.run(
        [
            sys.executable,
            "-m",
            "desiq",
            "fusion",
            "eval",
            "--model",
            str(model),
            "--data",
            str(root),
            "--split",
            "val",
            "--out",
            str(out),
            "--cache-dir",
            str(cache),
        ],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=1200,
    )
    assert ev.returncode == 0, ev.stderr[-3000:]
    rows = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    expected = scorer.score(dev, features)
    np.testing.assert_allclose([r["scores"] for r in rows], np.stack(expected), atol=1e-5)
    assert json.loads((out / "metrics.json").read_text())["A4"] == pytest.approx(metrics["dev"]["A4"])


def _error_lines(stderr: str) -> int:
    """Lines of stderr besides the note on what was read: the error and nothing else (no traceback)."""
    lines = stderr.splitlines()
    assert lines[-1].startswith("error: "), stderr
    return len([line for line in lines if not line.startswith("read ")])


def test_a_missing_pretrained_model_is_one_line_naming_the_flag(tiny, tmp_path):
    qa = tmp_path / "qa.jsonl"
    qa.write_text((Path(write_sample(tmp_path / "s", media=False)) / "qa" / "qa_train.json").read_text())
    env = {**ENV, "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf"), "HF_HUB_CACHE": str(tmp_path / "hf")}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "desiq",
            "fusion",
            "train",
            "--data",
            str(qa),
            "--inputs",
            "q+a",
            "--backbone",
            str(tiny["t5"]),
            "--out",
            str(tmp_path / "m"),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert run.returncode == 2 and _error_lines(run.stderr) == 1, run.stderr
    assert "cannot load the text encoder 'bert-base-uncased'" in run.stderr and "--text-encoder" in run.stderr
    root = write_sample(tmp_path / "media")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "desiq",
            "fusion",
            "train",
            "--architecture",
            "ours",
            "--data",
            str(root),
            "--inputs",
            "q+a+s",
            "--backbone",
            str(tiny["t5"]),
            "--out",
            str(tmp_path / "m2"),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert run.returncode == 2 and _error_lines(run.stderr) == 1, run.stderr
    assert "'facebook/wav2vec2-base-960h'" in run.stderr and "--audio-encoder logmel" in run.stderr
    assert not (tmp_path / "m").exists() and not (tmp_path / "m2").exists()


def test_missing_media_is_a_zero_vector_and_counted(tiny):
    item = MCQAItem("x@0", "x", "vid", "Why?", ("a b", "c d"), 0)
    features = MediaFeatures({"audio": {}}, {"audio": {"vid": "missing"}})
    batch = collate([item], features, {"audio": 32}, AutoTokenizer.from_pretrained(tiny["bert"]), True)
    values, mask = batch["inputs"]["media"]["audio"]
    assert values.shape == (2, 1, 32) and not values.any() and mask.tolist() == [[1], [1]]
    assert features.masked(item) == ["audio"]
