"""The context budget: a request never reaches the model past its language model's context.

On a LLaVA-1.5-shaped model (CLIP ViT-L/14 at 336 px: 576 tokens a frame; Vicuna's 4,096-token
context), ``desiq eval --inputs q+a+t+v`` at the default 8 frames would send 8 x 576 = 4,608 image tokens
alone. The budget drops frames evenly until the longest request of a video fits, then cuts the
transcript, and records what it kept; ``--fit error`` refuses instead.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from real_shaped import build_llava_1_5
from typer.testing import CliRunner

from desiq.cli import app
from desiq.llm.requests import transcript_window
from desiq.sample import write_sample
from mmsoc.media.transcript import Cue
from mmsoc.models.base import Request, Text, Video
from mmsoc.models.budget import Fitted, OverContext, context_length, fit_group

IMAGE_TOKENS = 576
"""(336 / 14)^2 patches of CLIP ViT-L/14 at 336 px, the class token dropped (llava-1.5-7b-hf)."""
CONTEXT = 4096
"""Vicuna-7B v1.5's max_position_embeddings (llava-1.5-7b-hf's text_config)."""


@pytest.fixture(scope="module")
def llava(tmp_path_factory):
    torch.set_num_threads(1)
    d = tmp_path_factory.mktemp("budget")
    return SimpleNamespace(model=str(build_llava_1_5(d / "llava15")), sample=write_sample(d / "sample"), dir=d)


def desiq(*args, code: int = 0):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == code, result.output
    return result


def rows_of(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "predictions.jsonl").open()]


def test_the_language_models_context_comes_from_its_config(llava):
    from transformers import AutoConfig, AutoTokenizer

    config = AutoConfig.from_pretrained(llava.model)
    assert context_length(config, AutoTokenizer.from_pretrained(llava.model)) == CONTEXT


def test_a_default_video_run_stays_inside_the_context_and_counts_what_it_dropped(llava, tmp_path):
    out = tmp_path / "run"
    desiq(
        "eval", "--model", llava.model, "--data", llava.sample, "--out", out, "--inputs", "q+a+t+v",
        "--condition", "original,NCAQ", "--limit", "2", "--cache-dir", llava.dir / "cache", "--no-progress",
    )  # fmt: skip
    rows = rows_of(out)
    video_rows = [r for r in rows if r["condition"] != "NCAQ"]
    assert rows and video_rows
    for row in rows:
        longest = max(len(option) for option in row["options"])
        assert row["prompt_tokens"] + 2 <= CONTEXT, row["id"]  # and its answer after it
        assert row["prompt_tokens"] + longest // 4 <= CONTEXT
    kept = {r["frames"] for r in video_rows}
    assert len(kept) == 1  # one video's questions keep the same frames (they share one prefix)
    (frames,) = kept
    assert 1 <= frames < 8 and (frames + 1) * IMAGE_TOKENS > CONTEXT - 200  # as many as fit, by hand: 6 or 7
    assert all(r["frames_dropped"] == 8 - frames for r in video_rows)
    assert all(r["frames"] is None and r["frames_dropped"] == 0 for r in rows if r["condition"] == "NCAQ")
    context = json.loads((out / "metrics.json").read_text())["context"]
    assert context["frames_dropped"] == sum(r["frames_dropped"] for r in rows) == len(video_rows) * (8 - frames)
    assert context["rows_with_frames_dropped"] == len(video_rows)
    assert context["max_prompt_tokens"] == max(r["prompt_tokens"] for r in rows) <= CONTEXT


def test_prompt_tokens_are_what_the_processor_gives_the_model(llava, tmp_path):
    """A row's count against the processor's own input_ids for the same prompt and frames (by hand)."""
    import decord
    import numpy as np
    from transformers import AutoProcessor

    out = tmp_path / "run"
    desiq(
        "eval", "--model", llava.model, "--data", llava.sample, "--out", out, "--inputs", "q+a+v",
        "--condition", "original", "--limit", "1", "--num-frames", "3", "--log-prompts",
        "--cache-dir", llava.dir / "cache", "--no-progress",
    )  # fmt: skip
    row = rows_of(out)[0]
    assert row["frames"] == 3 and row["frames_dropped"] == 0
    reader = decord.VideoReader(str(llava.sample / "video" / f"{row['vid_name']}.mp4"))
    frames = reader.get_batch(np.linspace(0, len(reader) - 1, 3).round().astype(int).tolist()).asnumpy()
    processor = AutoProcessor.from_pretrained(llava.model)
    assert row["prompt"].count("<image>") == 3
    batch = processor(text=[row["prompt"]], images=[list(frames)], return_tensors="pt")
    assert row["prompt_tokens"] == batch["input_ids"].shape[1]
    assert (batch["input_ids"][0] == processor.tokenizer.convert_tokens_to_ids("<image>")).sum() == 3 * IMAGE_TOKENS


def test_fit_error_refuses_each_question_over_the_context_by_name(llava, tmp_path):
    out = tmp_path / "run"
    desiq(
        "eval", "--model", llava.model, "--data", llava.sample, "--out", out, "--inputs", "q+a+v",
        "--condition", "original", "--limit", "1", "--fit", "error", "--cache-dir", llava.dir / "cache",
        "--no-progress",
    )  # fmt: skip
    problems = [json.loads(line) for line in (out / "problems.jsonl").open()]
    assert problems and not rows_of(out)
    assert all("exceed the context of 4096" in p["problem"] for p in problems)
    counts = [int(re.search(r"(\d+) prompt tokens", p["problem"]).group(1)) for p in problems]
    assert all(count > 8 * IMAGE_TOKENS for count in counts)


def test_a_transcript_too_long_for_one_frame_is_cut_to_its_first_cues(llava, tmp_path):
    """--max-context 740 leaves room for one frame (576 tokens), the question and part of the transcript
    (the sample's time stamps cover the whole clip, so the cues kept are the first ones)."""
    out = tmp_path / "run"
    desiq(
        "eval", "--model", llava.model, "--data", llava.sample, "--out", out, "--inputs", "q+a+t+v",
        "--condition", "original", "--limit", "1", "--max-context", "740", "--log-prompts",
        "--cache-dir", llava.dir / "cache", "--no-progress",
    )  # fmt: skip
    rows = rows_of(out)
    assert rows and all(r["frames"] == 1 and r["frames_dropped"] == 7 and r["prompt_tokens"] <= 740 for r in rows)
    (a4,) = [r for r in rows if r["config"] == "A4"]
    assert a4["transcript_tokens_dropped"] > 0
    vtt = (llava.sample / "transcript" / f"{a4['vid_name']}.vtt").read_text().splitlines()
    spoken = [line for line in vtt[1:] if line and "-->" not in line]
    kept = a4["prompt"].split("Transcript:\n", 1)[1].split("\n\nQuestion:", 1)[0].splitlines()
    assert 0 < len(kept) < len(spoken) and kept == spoken[: len(kept)]
    assert json.loads((out / "config.json").read_text())["max_context"] == 740


def test_transcript_window_keeps_the_cues_nearest_the_time_stamps_in_time_order():
    cues = [Cue(0, 2, "one"), Cue(2, 4, "two"), Cue(4, 6, "three"), Cue(6, 8, "four"), Cue(8, 10, "five")]
    words = len  # one token a character, for a hand count

    assert transcript_window(cues) == "one\ntwo\nthree\nfour\nfive"
    # ts 6-8: "four" overlaps (0 s away), "three" and "five" touch it (0 s), then "two" (2 s), "one" (4 s)
    assert transcript_window(cues, "6.0-8.0", 15, words) == "three\nfour\nfive"  # 5 + 1 + 4 + 1 + 4
    assert transcript_window(cues, "6.0-8.0", 10, words) == "three\nfour"
    assert transcript_window(cues, "", 7, words) == "one\ntwo"  # no time stamps: from the start
    assert transcript_window(cues, "0.00-10.0", 0, words) == ""


class CharCounter:
    """Counts a request as one token a character of text plus 100 a video frame (a hand-checkable model)."""

    def __init__(self, context: int | None):
        self.context_length = context

    def prompt_tokens(self, request: Request) -> int:
        frames = sum(part.frames or 8 for part in request.parts if isinstance(part, Video))
        return len(request.prompt) + 100 * frames

    def text_tokens(self, text: str) -> int:
        return len(text)


def _maker(question: str, transcript: str):
    def make(frames, tokens):
        kept = transcript if tokens is None else transcript[:tokens]
        parts = ((Video("v.mp4", frames),) if frames != 0 else ()) + (Text(kept + question),)
        return Request("t", question, parts), len(transcript)

    return make


def test_fit_group_drops_the_same_frames_for_a_video_then_cuts_each_text():
    makers = [_maker("short?", "x" * 50), _maker("a much longer question?", "x" * 50)]
    fitted = fit_group(CharCounter(700), makers, 8, [10, 10])
    # the longer request: 50 + 23 chars + 10 reserved; 6 frames (600) fit, 7 (700) do not
    assert [f.frames for f in fitted] == [6, 6] and all(isinstance(f, Fitted) for f in fitted)
    assert [f.prompt_tokens for f in fitted] == [656, 673] and fitted[0].frames_dropped == 2
    tight = fit_group(CharCounter(150), makers, 8, [10, 10])
    # one frame (100) + 10 reserved leaves 40 chars: "short?" keeps 34 of 50, the long one 17
    assert [f.frames for f in tight] == [1, 1]
    assert [f.text_tokens_dropped for f in tight] == [16, 33]
    assert [f.prompt_tokens for f in tight] == [140, 140]
    refused = fit_group(CharCounter(100), makers, 8, [10, 10])
    assert all(isinstance(f, OverContext) for f in refused)
    errors = fit_group(CharCounter(700), makers, 8, [10, 10], policy="error", ids=["a", "b"])
    assert all(isinstance(f, OverContext) and str(f).startswith(name) for f, name in zip(errors, "ab"))
    assert fit_group(CharCounter(None), makers, 8, [10, 10])[0].frames == 8


def test_mmsoc_eval_cuts_a_long_news_text_to_fit_and_logs_the_prompt(llava, tmp_path):
    """PolitiFact items carry the article's text: with --max-context 660 (one image's 576 tokens, the
    instruction and the 4 tokens to write), the text keeps the words that fit, and the row says so."""
    from mmsoc.cli import app as mmsoc_app

    out = tmp_path / "run"
    args = [
        "eval", "--task", "misinfo_politifact", "--model", llava.model, "--data", "sample", "--limit", "2",
        "--greedy", "--max-new-tokens", "4", "--text-length", "0", "--max-context", "660", "--log-prompts",
        "--out", str(out), "--no-progress",
    ]  # fmt: skip
    result = CliRunner().invoke(mmsoc_app, args)
    assert result.exit_code == 0, result.output
    rows = rows_of(out)
    assert len(rows) == 2
    for row in rows:
        assert row["prompt_tokens"] + 4 <= 660 and row["text_tokens_dropped"] > 0
        assert row["prompt"].startswith("USER: <image>\n")
    refused = tmp_path / "refused"
    result = CliRunner().invoke(mmsoc_app, [*args[:-3], "--fit", "error", "--out", str(refused), "--no-progress"])
    assert result.exit_code == 1 and "0 of 2 items succeeded; first error: " in result.output, result.output
    problems = [json.loads(line) for line in (refused / "problems.jsonl").open()]
    assert len(problems) == 2 and all("exceed the context of 660" in p["problem"] for p in problems)


def test_fine_tuning_prompts_are_cut_to_fit_with_their_targets(llava):
    from mmsoc.models.inputs import ModelInputs
    from mmsoc.models.registry import ModelOptions
    from mmsoc.runners.finetune.data import build_training_set
    from mmsoc.runners.fitting import counter_of
    from mmsoc.tasks.data import LoadOptions, load_examples
    from mmsoc.tasks.prompts import prompt_for

    task = "misinfo_politifact"
    examples = load_examples(task, "sample", split="train", limit=2, options=LoadOptions(text_length=0)).examples
    inputs = ModelInputs.from_files(llava.model, ModelOptions(max_context=660))
    training = build_training_set(examples, {task: prompt_for(task)[0]}, None, counter_of(inputs))
    assert len(training.items) == 2 and training.text_tokens_dropped > 0
    for item in training.items:
        assert inputs.prompt_tokens(item.request) + inputs.text_tokens(f" {item.target}") + 1 <= 660
    whole = build_training_set(examples, {task: prompt_for(task)[0]})  # without a model: as before
    assert [item.request for item in whole.items] != [item.request for item in training.items]
