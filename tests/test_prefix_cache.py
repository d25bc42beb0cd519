"""Shared-prefix scoring and generation give what the full path gives, with each video encoded once.

For LLaVA-1.5 (video as frames), LLaVA-OneVision and Qwen2-VL (the processors' video input; Qwen's
multimodal rotary positions), the tiny models and the real-shaped ones: every option score equals the
full path's to ``TOLERANCE`` and greedy generation is identical; a ``desiq eval`` run over every condition sends
each distinct set of frames through the vision tower once.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from numpy.testing import assert_allclose
from real_shaped import (
    build_llava_1_5,
    build_llava_next,
    build_llava_next_video,
    build_llava_onevision,
    build_qwen2_5_vl,
    build_qwen2_vl,
    build_video_llava,
)
from tiny_video_models import VIDEO_BUILDERS
from typer.testing import CliRunner

from desiq.cli import app
from desiq.sample import sample_items, write_sample
from mmsoc.models.backends.hf import HFModel
from mmsoc.models.base import GenerationSettings, Request, Text, Video
from mmsoc.models.registry import MediaSettings

TOLERANCE = {"rtol": 1e-5, "atol": 1e-4}
"""Shared and full scores agree when |shared - full| <= atol + rtol * |full|: relative, since a long answer's
log-likelihood reaches -500."""

BUILDERS = {
    **{f"tiny-{name}": build for name, build in VIDEO_BUILDERS.items() if name != "qwen2_audio"},
    "real-llava_1_5": build_llava_1_5,
}
MORE_BUILDERS = {
    "real-llava_onevision": build_llava_onevision,
    "real-qwen2_vl": build_qwen2_vl,
    "real-llava_next": build_llava_next,
    "real-llava_next_video": build_llava_next_video,
    "real-video_llava": build_video_llava,
    "real-qwen2_5_vl": build_qwen2_5_vl,
}
"""The real-shaped fixtures of the other families the shared prefix serves (``mmsoc.models.prefix.SHARED_FAMILIES``):
larger inputs, so with ``-m slow`` (their tiny twins run by default)."""


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    torch.set_num_threads(1)
    d = tmp_path_factory.mktemp("prefix")
    return SimpleNamespace(dir=d, sample=write_sample(d / "sample"), models={})


def model_dir(env, name: str) -> str:
    if name not in env.models:
        env.models[name] = str({**BUILDERS, **MORE_BUILDERS}[name](env.dir / name))
    return env.models[name]


def _requests(sample: Path) -> tuple[list[Request], list[list[str]]]:
    """Two videos' questions with their options, and one question without media (as NCAQ asks)."""
    items = sample_items("val")[5:9]  # the last question of the first video and three of the second
    requests, options = [], []
    for item in items:
        video = Video(str(sample / "video" / f"{item.video}.mp4"))
        listed = "".join(f"{label}. {option}\n" for label, option in zip("ABCD", item.options))
        text = f"Question: {item.question}\nOptions:\n{listed}"
        requests.append(Request("t", item.id, (video, Text(text))))
        options.append([f"{label}. {option}" for label, option in zip("ABCD", item.options)])
    requests.append(Request("t", "blind", (Text("Options:\n" + "\n".join(options[0])),)))
    options.append(options[0][:2])
    return requests, options


@pytest.mark.parametrize("name", [*BUILDERS, *(pytest.param(name, marks=pytest.mark.slow) for name in MORE_BUILDERS)])
def test_shared_prefix_scores_and_greedy_generation_equal_the_full_path(env, name):
    requests, options = _requests(env.sample)
    media = MediaSettings(num_frames=2, cache_dir=str(env.dir / "cache"))
    out = {}
    for setting in ("off", "auto"):
        model = HFModel(model_dir(env, name), device="cpu", dtype="float32", prefix_cache=setting, media=media)
        scores = model.score_options(requests, options)
        replies = model.generate(requests, GenerationSettings(greedy=True, max_new_tokens=5))
        out[setting] = (scores, replies, model.runtime())
    (full, full_replies, full_run), (shared, shared_replies, shared_run) = out["off"], out["auto"]
    assert full_run["path"] == "full" and shared_run["path"] == "shared-prefix"
    for a, b in zip(full, shared):
        assert_allclose(b.loglik, a.loglik, **TOLERANCE)
    assert shared_replies == full_replies
    # two videos and the question without media: three prefixes for scoring, three for generation
    assert shared_run["prefix_passes"] == 6
    assert shared_run["frames_encoded"] == 2 * 2 * 2  # each video's 2 frames, once for each of the two calls
    assert shared_run["tokens_processed"] < full_run["tokens_processed"]


def test_every_condition_encodes_each_video_once_and_counts_its_work(env, tmp_path, monkeypatch):
    from transformers.models.clip import modeling_clip

    seen: list[int] = []
    embed = modeling_clip.CLIPVisionEmbeddings.forward

    def counting(self, pixel_values, *args, **kwargs):  # the real tower still runs; its frames are counted
        seen.append(pixel_values.shape[0])
        return embed(self, pixel_values, *args, **kwargs)

    monkeypatch.setattr(modeling_clip.CLIPVisionEmbeddings, "forward", counting)
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        [
            "eval", "--model", model_dir(env, "tiny-llava15"), "--data", str(env.sample), "--out", str(out),
            "--limit", "8", "--num-frames", "4", "--cache-dir", str(env.dir / "cache"), "--no-progress",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    runtime = json.loads((out / "runtime.json").read_text())
    rows = [json.loads(line) for line in (out / "predictions.jsonl").open()]
    videos = {row["vid_name"] for row in rows}
    assert len(videos) == 2 and runtime["path"] == "shared-prefix"
    assert sum(seen) == runtime["frames_encoded"] == 4 * len(videos)  # the distinct frames, each through once
    assert runtime["prefix_passes"] == 2 * len(videos)  # per video: its media, and its questions asked blind
    assert runtime["rows_scored"] == sum(len(row["options"]) for row in rows)
    assert f"frames_encoded {4 * len(videos)}" in result.output


def test_prefix_cache_off_and_families_that_cannot_continue_take_the_full_path(env, tmp_path):
    from tiny_models import build_tiny_blip2

    off = HFModel(model_dir(env, "tiny-llava15"), device="cpu", prefix_cache="off")
    assert (off.path, off.why) == ("full", "--prefix-cache off")
    blip = HFModel(str(build_tiny_blip2(tmp_path / "blip2")), device="cpu")
    assert blip.path == "full" and "blip-2" in blip.why
