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


def _eval(env, out: Path, *flags: str) -> tuple[dict, list[dict], str]:
    """``desiq eval`` of the tiny LLaVA-1.5 over every condition of 8 sample questions: runtime, rows, output."""
    result = CliRunner().invoke(
        app,
        [
            "eval", "--model", model_dir(env, "tiny-llava15"), "--data", str(env.sample), "--out", str(out),
            "--limit", "8", "--num-frames", "4", "--cache-dir", str(env.dir / "cache"), "--no-progress", *flags,
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (out / "predictions.jsonl").open()]
    return json.loads((out / "runtime.json").read_text()), rows, result.output


def test_every_condition_encodes_each_video_once_and_counts_its_work(env, tmp_path, monkeypatch):
    from transformers.models.clip import modeling_clip

    seen: list[int] = []
    embed = modeling_clip.CLIPVisionEmbeddings.forward

    def counting(self, pixel_values, *args, **kwargs):  # the real tower still runs; its frames are counted
        seen.append(pixel_values.shape[0])
        return embed(self, pixel_values, *args, **kwargs)

    monkeypatch.setattr(modeling_clip.CLIPVisionEmbeddings, "forward", counting)
    runtime, rows, output = _eval(env, tmp_path / "run")
    videos = {row["vid_name"] for row in rows}
    assert len(videos) == 2 and runtime["path"] == "shared-prefix"
    assert sum(seen) == runtime["frames_encoded"] == 4 * len(videos)  # the distinct frames, each through once
    assert runtime["prefix_passes"] == 2 * len(videos)  # per video: its media, and its questions asked blind
    assert runtime["rows_answered"] == sum(len(row["options"]) for row in rows)
    assert runtime["full_path_videos"] == []
    assert runtime["rows_per_pass"] == round(runtime["rows_scored"] / runtime["forward_passes"], 2)
    assert f"frames_encoded {4 * len(videos)}" in output


def test_every_condition_chooses_as_the_full_path_and_scores_identical_requests_once(env, tmp_path):
    full_run, full, _ = _eval(env, tmp_path / "off", "--prefix-cache", "off")
    shared_run, shared, _ = _eval(env, tmp_path / "auto", "--batch-size", "3")
    assert len({row["condition"] for row in full}) > 3
    for a, b in zip(full, shared, strict=True):
        assert (a["id"], a["condition"], a["rotation"]) == (b["id"], b["condition"], b["rotation"])
        assert (a["chosen"], a["chosen_norm"]) == (b["chosen"], b["chosen_norm"])
        assert_allclose(b["scores"], a["scores"], **TOLERANCE)
    for run in (full_run, shared_run):  # conditions that show the same thing ask the same request: scored once
        assert run["rows_answered"] == sum(len(row["options"]) for row in full)
        assert run["rows_scored"] < run["rows_answered"]
    assert shared_run["rows_scored"] == full_run["rows_scored"]
    assert shared_run["tokens_processed"] * 5 < full_run["tokens_processed"]
    assert shared_run["attended_tokens"] * 2 < full_run["attended_tokens"]


def test_identical_requests_are_scored_once_and_each_receives_the_score(env):
    requests, options = _requests(env.sample)
    media = MediaSettings(num_frames=2, cache_dir=str(env.dir / "cache"))
    once = HFModel(model_dir(env, "tiny-llava15"), device="cpu", dtype="float32", media=media)
    alone = once.score_options(requests, options)
    twice = HFModel(model_dir(env, "tiny-llava15"), device="cpu", dtype="float32", media=media)
    doubled = twice.score_options([*requests, *requests[::-1]], [*options, *options[::-1]])
    assert doubled == [*alone, *alone[::-1]]
    rows = sum(len(o) for o in options)
    assert (twice.work.rows_scored, twice.work.rows_answered) == (rows, 2 * rows)
    assert twice.work.tokens_processed == once.work.tokens_processed


@pytest.mark.parametrize("memory", ["small", "none"])
def test_a_memory_budget_chunks_the_passes_and_only_a_prefix_that_does_not_fit_runs_whole(env, memory):
    requests, options = _requests(env.sample)
    media = MediaSettings(num_frames=2, cache_dir=str(env.dir / "cache"))
    path = model_dir(env, "tiny-llava15")
    full = HFModel(path, device="cpu", dtype="float32", media=media, prefix_cache="off").score_options(
        requests, options
    )
    roomy = HFModel(path, device="cpu", dtype="float32", media=media, batch_size="auto")
    roomy.score_options(requests, options)
    footprint = roomy.prefix.footprint
    widest = max(len(roomy.encode([r])["input_ids"][0]) for r in requests)
    gib = footprint.prefix(widest) * 1.01 / 2**30 if memory == "small" else 1e-9
    tight = HFModel(path, device="cpu", dtype="float32", media=media, batch_size="auto", prefix_memory=gib)
    scores = tight.score_options(requests, options)
    for a, b in zip(full, scores):
        assert_allclose(b.loglik, a.loglik, **TOLERANCE)
    assert tight.path == roomy.path == "shared-prefix"
    if memory == "small":  # the prefixes fit, the continuations go a row at a time
        assert tight.work.full_path_videos == []
        assert tight.work.tokens_processed == roomy.work.tokens_processed
        assert tight.work.forward_passes == tight.work.prefix_passes + sum(len(o) for o in options)
        assert roomy.work.forward_passes == roomy.work.prefix_passes * 2  # each group's tree in one pass
    else:  # no prefix fits: each group runs whole and is listed
        assert [line.split(":")[0] for line in tight.work.full_path_videos] == [
            *dict.fromkeys(str(r.parts[0].path) for r in requests[:-1]),
            "no media",
        ]
        assert all("does not fit" in line for line in tight.work.full_path_videos)


def test_prefix_cache_off_and_families_that_cannot_continue_take_the_full_path(env, tmp_path):
    from tiny_models import build_tiny_blip2

    off = HFModel(model_dir(env, "tiny-llava15"), device="cpu", prefix_cache="off")
    assert (off.path, off.why) == ("full", "--prefix-cache off")
    blip = HFModel(str(build_tiny_blip2(tmp_path / "blip2")), device="cpu")
    assert blip.path == "full" and "blip-2" in blip.why


@pytest.mark.slow
def test_the_mid_size_model_chooses_as_the_full_path_under_every_condition(env, tmp_path):
    """The benchmarks' mid-size LLaVA-1.5 (224 px, 256 image tokens a frame, a 4-layer Llama of width 256)."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from bench_desiq_llm import build_mid

    model = str(build_mid(tmp_path / "mid", 224))
    runs = {}
    for setting in ("off", "auto"):
        out = tmp_path / setting
        result = CliRunner().invoke(
            app,
            [
                "eval", "--model", model, "--data", str(env.sample), "--out", str(out), "--limit", "7",
                "--num-frames", "2", "--cache-dir", str(env.dir / "cache"), "--no-progress", "--prefix-cache", setting,
            ],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        runs[setting] = [json.loads(line) for line in (out / "predictions.jsonl").open()]
    assert len({row["condition"] for row in runs["off"]}) > 3
    for a, b in zip(runs["off"], runs["auto"], strict=True):
        assert (a["id"], a["condition"], a["rotation"], a["chosen"]) == (
            b["id"],
            b["condition"],
            b["rotation"],
            b["chosen"],
        )
        assert_allclose(b["scores"], a["scores"], **TOLERANCE)
