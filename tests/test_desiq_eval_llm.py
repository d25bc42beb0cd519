"""``desiq eval`` end to end: tiny LLaVA-1.5, LLaVA-OneVision and Qwen2-VL on the embedded sample's mp4 clips."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from tiny_video_models import VIDEO_BUILDERS
from typer.testing import CliRunner

from desiq.cli import app
from desiq.formats import read_mcqa
from desiq.llm.conditions import CONDITIONS
from desiq.sample import sample_items, write_sample

LIMIT = 8
"""The first eight val questions: two videos (sample040 has six questions)."""
EXPECTED_VIDEO_INPUT = {"llava15": "frames", "llava_onevision": "video", "qwen2_vl": "video"}


@pytest.fixture(scope="module")
def siq(tmp_path_factory):
    torch.set_num_threads(1)
    d = tmp_path_factory.mktemp("desiq_llm")
    models = {name: str(build(d / name)) for name, build in VIDEO_BUILDERS.items()}
    return SimpleNamespace(dir=d, sample=write_sample(d / "sample"), models=models, cache=d / "cache", runs={})


def desiq(*args: str, code: int = 0):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == code, result.output
    return result


def eval_args(siq, family: str, out: Path, *extra: str) -> list[str]:
    return [
        "eval",
        "--model",
        siq.models[family],
        "--data",
        siq.sample,
        "--out",
        out,
        "--limit",
        str(LIMIT),
        "--num-frames",
        "4",
        "--cache-dir",
        siq.cache,
        "--no-progress",
        *extra,
    ]


def rows_of(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]


def full_run(siq, family: str) -> Path:
    """Every condition with every input the tiny models read (q+a+t+v), run once per family."""
    if family not in siq.runs:
        out = siq.dir / f"run_{family}"
        desiq(*eval_args(siq, family, out, "--batch-size", "16"))
        siq.runs[family] = out
    return siq.runs[family]


@pytest.mark.parametrize("family", list(VIDEO_BUILDERS))
def test_every_condition_runs_on_real_frames(siq, family):
    run = full_run(siq, family)
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["model"] == siq.models[family] and metrics["inputs"] == "q+a+t+v" and metrics["answer"] == "loglik"
    got = {(r["condition"], r["config"]): r for r in metrics["results"]}
    assert set(got) == {(c, k) for c in CONDITIONS for k in ("A4", "A2")}
    for (condition, config), r in got.items():
        assert r["n"] == (LIMIT if config == "A4" else 3 * LIMIT)
        k = 4 if config == "A4" else 2
        assert r["chance"] == pytest.approx((1 / k) ** k if condition == "circular" else 1 / k)
        assert 0 <= r["accuracy"] <= 1 and r["videos"] == len({row["vid_name"] for row in rows_of(run)}) < 10
        assert r["ci95"] is None  # the questions come from fewer than ten videos: no interval, no verdict
        assert r["success_rate"] is None and 0 <= r["accuracy_norm"] <= 1
    assert sum(metrics["position"]["chosen"]) == sum(metrics["position"]["gold"]) == LIMIT
    config = json.loads((run / "config.json").read_text())
    assert config["media"]["video_input"] == EXPECTED_VIDEO_INPUT[family]
    assert config["media"]["transcript"] and config["media"]["video"] and config["media"]["audio"] is None
    rows = rows_of(run)
    once = len(CONDITIONS) - 1  # A4 and A2 asked once per condition, circular rotated
    assert len(rows) == LIMIT * (once + 4) + 3 * LIMIT * (once + 2)
    assert all(r["missing"] == [] for r in rows)
    table = (run / "table.md").read_text()
    assert all(f"| {c} |" in table for c in CONDITIONS) and "Position bias" in table and "acc_norm" in table
    for name in ("original.A4", "RAWI.A2", "desiq_s.A4", "circular.A4"):  # what was asked, readable back
        assert read_mcqa(run / "conditions" / f"{name}.jsonl")


def _frames(path: Path, n: int) -> np.ndarray:
    import decord

    reader = decord.VideoReader(str(path))
    return reader.get_batch(np.linspace(0, len(reader) - 1, n).round().astype(int).tolist()).asnumpy()


def _transcript(path: Path) -> str:
    lines = path.read_text().splitlines()
    return "\n".join(line for line in lines[1:] if line and "-->" not in line)


def _prompt(item, options, question: bool, transcript: str | None) -> str:
    """The mc-letter-v1 prompt, written out by hand."""
    text = f"Transcript:\n{transcript}\n\n" if transcript is not None else ""
    text += f"Question: {item.question}\n" if question else ""
    text += "Options:\n" + "".join(f"{label}. {option}\n" for label, option in zip("ABCD", options))
    return text + "Answer with the letter and the text of the correct option."


def _loglik_by_hand(model, proc, family: str, prompt: str, frames: np.ndarray | None, answer: str) -> float:
    """log p(answer | prompt and frames) from one forward pass over the unpadded prompt + answer."""
    if family == "llava15":
        text = "USER: " + "<image>\n" * (0 if frames is None else len(frames)) + prompt + " ASSISTANT:"
        media = {} if frames is None else {"images": [list(frames)]}
    else:
        parts = ([] if frames is None else [{"type": "video"}]) + [{"type": "text", "text": prompt}]
        text = proc.apply_chat_template(
            [{"role": "user", "content": parts}], add_generation_prompt=True, tokenize=False
        )
        media = {} if frames is None else {"videos": [frames]}
        if family == "qwen2_vl" and frames is not None:  # the reference (qwen-vl-utils) pixel cap per frame
            media["cap_pixels_per_frame"] = True
    enc = proc(text=[text], return_tensors="pt", **media)
    # in context, as lm-evaluation-harness scores it: a space between a prompt and its answer unless the
    # prompt ends in whitespace (LLaVA's "ASSISTANT:" does not, ChatML's "assistant\n" does)
    whole = text + ("" if text[-1].isspace() else " ") + answer
    tok = proc.tokenizer
    target = tok(whole, add_special_tokens=False)["input_ids"][len(tok(text, add_special_tokens=False)["input_ids"]) :]
    n = enc["input_ids"].shape[1]
    inputs = {**enc, "input_ids": torch.cat([enc["input_ids"], torch.tensor([target])], 1)}
    inputs["attention_mask"] = torch.ones_like(inputs["input_ids"])
    if "mm_token_type_ids" in enc:
        text_types = torch.zeros(1, len(target), dtype=torch.long)
        inputs["mm_token_type_ids"] = torch.cat([enc["mm_token_type_ids"], text_types], 1)
    with torch.no_grad():
        logp = torch.log_softmax(model(**inputs).logits[0].float(), -1)
    return float(sum(logp[n - 1 + k, t].double() for k, t in enumerate(target)))


@pytest.mark.parametrize("family", list(VIDEO_BUILDERS))
def test_loglik_equals_a_forward_pass_by_hand(siq, family):
    from transformers import AutoModelForImageTextToText, AutoProcessor

    run = full_run(siq, family)
    proc = AutoProcessor.from_pretrained(siq.models[family])
    model = AutoModelForImageTextToText.from_pretrained(siq.models[family]).eval()
    items = {item.id: item for item in sample_items("val")}
    checked = 0
    for row in rows_of(run):
        if (
            row["config"] != "A4"
            or row["condition"] not in ("original", "NCAQ", "RIWA")
            or row["source"] not in list(items)[:2]
        ):
            continue
        item, blind = items[row["source"]], row["condition"] == "NCAQ"
        frames = None if blind else _frames(siq.sample / "video" / f"{item.video}.mp4", 4)
        transcript = None if blind else _transcript(siq.sample / "transcript" / f"{item.video}.vtt")
        prompt = _prompt(item, row["options"], not blind, transcript)
        for k, (label, option) in enumerate(zip("ABCD", row["options"])):
            expected = _loglik_by_hand(model, proc, family, prompt, frames, f"{label}. {option}")
            # sums of 20-200 nats: a relative tolerance (one float32 rounding of the sum is ~1e-5 absolute)
            assert row["scores"][k] == pytest.approx(expected, rel=1e-5, abs=1e-5), (row["condition"], k)
            assert row["chars"][k] == len(f"{label}. {option}")
        checked += 1
    assert checked == 6


def test_frames_are_decoded_once_for_every_condition_and_model(siq, tmp_path, monkeypatch):
    import mmsoc.media.clips as clips

    decoded: list[str] = []
    real = clips.read_frames

    def counting(path, *args, **kwargs):
        decoded.append(Path(path).name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(clips, "read_frames", counting)
    cache = tmp_path / "cache"
    common = ["--data", siq.sample, "--limit", str(LIMIT), "--inputs", "q+a+v", "--cache-dir", cache, "--no-progress"]
    desiq("eval", "--model", siq.models["llava15"], "--out", tmp_path / "a", *common)
    assert sorted(decoded) == ["sample040.mp4", "sample041.mp4"]  # nine conditions, two videos, two decodes
    desiq("eval", "--model", siq.models["qwen2_vl"], "--out", tmp_path / "b", *common)
    assert len(decoded) == 2  # a second model over the same videos decodes nothing
    desiq("eval", "--model", siq.models["qwen2_vl"], "--out", tmp_path / "c", *common, "--num-frames", "2")
    assert len(decoded) == 4  # other frames: decoded once more


@pytest.mark.parametrize("family", ["llava15", "qwen2_vl"])
def test_predictions_do_not_change_with_batch_size(siq, tmp_path, family):
    extra = ("--condition", "original,NCAQ,circular", "--inputs", "q+a+v")
    desiq(*eval_args(siq, family, tmp_path / "b1", *extra, "--batch-size", "1"))
    desiq(*eval_args(siq, family, tmp_path / "b9", *extra, "--batch-size", "9"))
    one, nine = rows_of(tmp_path / "b1"), rows_of(tmp_path / "b9")
    assert [{k: v for k, v in r.items() if k != "scores"} for r in one] == [
        {k: v for k, v in r.items() if k != "scores"} for r in nine
    ]
    for a, b in zip(one, nine):
        assert a["scores"] == pytest.approx(b["scores"], rel=1e-6, abs=1e-6)
    assert (tmp_path / "b1/metrics.json").read_bytes() == (tmp_path / "b9/metrics.json").read_bytes()


def test_a_different_configuration_is_refused_and_a_qa_file_cannot_show_video(siq, tmp_path):
    desiq(*eval_args(siq, "llava15", tmp_path / "r", "--condition", "original", "--inputs", "q+a"))
    refused = desiq(*eval_args(siq, "llava15", tmp_path / "r", "--condition", "original", "--inputs", "q+a+v"), code=2)
    assert "different run" in refused.output and "inputs" in refused.output
    single = desiq(
        "eval",
        "--model",
        siq.models["llava15"],
        "--data",
        siq.sample / "qa" / "qa_val.json",
        "--out",
        tmp_path / "s",
        "--inputs",
        "q+a+v",
        code=2,
    )
    assert "need media (video)" in single.output and not (tmp_path / "s").exists()


def test_missing_and_undecodable_videos_are_asked_without_and_counted(siq, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(siq.sample, data, ignore=shutil.ignore_patterns("audio"))
    (data / "video" / "sample040.mp4").unlink()
    (data / "video" / "sample041.mp4").write_bytes(b"not a video")
    run = tmp_path / "run"
    desiq(
        "eval",
        "--model",
        siq.models["qwen2_vl"],
        "--data",
        data,
        "--out",
        run,
        "--limit",
        str(LIMIT),
        "--condition",
        "original",
        "--inputs",
        "q+a+v",
        "--cache-dir",
        tmp_path / "cache",
        "--no-progress",
    )
    rows = rows_of(run)
    assert {r["vid_name"]: r["missing"] for r in rows} == {"sample040": ["video"], "sample041": ["video"]}
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["missing"] == {"video": len(rows)} and metrics["results"][0]["n"] == LIMIT


def test_written_answers_are_parsed_and_the_format_success_rate_reported(siq, tmp_path):
    run = tmp_path / "gen"
    out = desiq(
        *eval_args(
            siq,
            "llava15",
            run,
            "--condition",
            "original,circular",
            "--answer",
            "generate",
            "--max-new-tokens",
            "3",
            "--prompt",
            "siq2-challenge-v1",
            "--parse",
            "challenge",
        )
    )
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["answer"] == "generate" and metrics["parse"] == "challenge"
    rows = rows_of(run)
    assert all(set(r) >= {"raw", "chosen", "strict", "digits"} for r in rows)
    original = [r for r in rows if r["condition"] == "original" and r["config"] == "A4"]
    entry = next(r for r in metrics["results"] if (r["condition"], r["config"]) == ("original", "A4"))
    assert entry["accuracy"] == sum(r["gold"] in r["digits"] for r in original) / LIMIT
    assert entry["success_rate"] == sum(r["strict"] is not None for r in original) / LIMIT
    assert "| original |" in out.output
    wrong = desiq(*eval_args(siq, "llava15", tmp_path / "x", "--answer", "generate", "--parse", "challenge"), code=2)
    assert "reads option indices" in wrong.output


def test_the_unlabelled_test_split_writes_a_submission_and_no_accuracy(siq, tmp_path):
    data = tmp_path / "data"
    (data / "qa").mkdir(parents=True)
    for name in ("video", "transcript"):
        (data / name).symlink_to(siq.sample / name)
    labelled = [json.loads(line) for line in (siq.sample / "qa" / "qa_val.json").read_text().splitlines()][:LIMIT]
    test_rows = [{k: v for k, v in row.items() if k not in ("ans_corr", "answer_idx", "idx_types")} for row in labelled]
    (data / "qa" / "qa_test.json").write_text("".join(json.dumps(row) + "\n" for row in test_rows))
    run = tmp_path / "run"
    out = desiq(
        "eval",
        "--model",
        siq.models["llava15"],
        "--data",
        data,
        "--split",
        "test",
        "--out",
        run,
        "--cache-dir",
        siq.cache,
        "--num-frames",
        "4",
        "--no-progress",
    )
    assert "not scored" in out.stdout and "%" not in out.stdout and "| original |" not in out.stdout
    submission = [json.loads(line) for line in (run / "submission.jsonl").read_text().splitlines()]
    assert [{k: v for k, v in row.items() if k != "answer_idx"} for row in submission] == test_rows
    assert all(row["answer_idx"] in (0, 1, 2, 3) for row in submission)
    original = [r for r in rows_of(run) if r["condition"] == "original"]
    assert [row["answer_idx"] for row in submission] == [r["chosen"] for r in original]
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["results"] == [] and not metrics["labelled"] and metrics["position"]["gold"] is None
    assert "not scored" in (run / "table.md").read_text()
    refused = desiq(
        "eval",
        "--model",
        siq.models["llava15"],
        "--data",
        data,
        "--split",
        "test",
        "--out",
        tmp_path / "r2",
        "--condition",
        "RIWI",
        code=2,
    )
    assert "need answer keys" in refused.output


@pytest.mark.parametrize("family", ["blip2", "instructblip"])
def test_one_image_families_get_a_grid_and_score_alike_in_any_batch(siq, tiny_dirs, tmp_path, family):
    """BLIP-2 and InstructBLIP take one image per prompt: the frames go as one grid image. InstructBLIP's
    Q-Former reads the prompt right-padded, so its visual tokens never depend on the batch."""
    runs = []
    for size in ("1", "9"):
        run = tmp_path / size
        desiq(
            "eval",
            "--model",
            tiny_dirs[family],
            "--data",
            siq.sample,
            "--out",
            run,
            "--limit",
            str(LIMIT),
            "--condition",
            "original",
            "--inputs",
            "q+a+v",
            "--batch-size",
            size,
            "--cache-dir",
            siq.cache,
            "--no-progress",
        )
        runs.append(rows_of(run))
    assert json.loads((tmp_path / "1" / "config.json").read_text())["media"]["video_input"] == "grid"
    for a, b in zip(*runs):
        assert a["chosen"] == b["chosen"] and a["scores"] == pytest.approx(b["scores"], rel=1e-6, abs=1e-6)


def test_audio_reaches_a_model_that_hears_and_the_transcript_the_others(siq, tmp_path):
    import soundfile
    import torchaudio.functional as F
    from tiny_video_models import build_qwen2_audio
    from transformers import AutoModelForMultimodalLM, AutoProcessor

    hearing = build_qwen2_audio(tmp_path / "qwen2_audio")
    args = [
        "--data",
        siq.sample,
        "--limit",
        str(LIMIT),
        "--condition",
        "original",
        "--inputs",
        "q+a+s",
        "--cache-dir",
        siq.cache,
        "--no-progress",
    ]
    desiq("eval", "--model", hearing, "--out", tmp_path / "hears", *args)
    desiq("eval", "--model", siq.models["llava15"], "--out", tmp_path / "reads", *args)
    assert json.loads((tmp_path / "hears/config.json").read_text())["media"]["audio"] == "audio"
    assert json.loads((tmp_path / "reads/config.json").read_text())["media"]["audio"] == "transcript"
    row = rows_of(tmp_path / "hears")[0]
    item = sample_items("val")[0]
    wave, rate = soundfile.read(siq.sample / "audio" / "wav" / f"{item.video}.wav", dtype="float32")
    wave = F.resample(torch.from_numpy(wave), rate, 16000).numpy()
    proc, model = AutoProcessor.from_pretrained(hearing), AutoModelForMultimodalLM.from_pretrained(hearing).eval()
    content = [{"type": "audio"}, {"type": "text", "text": _prompt(item, row["options"], True, None)}]
    text = proc.apply_chat_template([{"role": "user", "content": content}], add_generation_prompt=True, tokenize=False)
    enc = proc(text=[text], audio=[wave], sampling_rate=16000, return_tensors="pt")
    for k, (label, option) in enumerate(zip("ABCD", row["options"])):
        target = proc.tokenizer(f"{label}. {option}", add_special_tokens=False)["input_ids"]
        n = enc["input_ids"].shape[1]
        ids = torch.cat([enc["input_ids"], torch.tensor([target])], 1)
        with torch.no_grad():
            logits = model(**{**enc, "input_ids": ids, "attention_mask": torch.ones_like(ids)}).logits[0]
        logp = torch.log_softmax(logits.float(), -1)
        expected = float(sum(logp[n - 1 + j, t].double() for j, t in enumerate(target)))
        assert row["scores"][k] == pytest.approx(expected, rel=1e-5, abs=1e-5)


def test_a_social_iq_frames_folder_stands_in_for_a_missing_mp4(siq, tmp_path, monkeypatch):
    from PIL import Image

    import mmsoc.media.clips as clips
    from desiq.sample import frames, sample_videos

    data = tmp_path / "data"
    shutil.copytree(siq.sample, data, ignore=shutil.ignore_patterns("audio"))
    (data / "video" / "sample040.mp4").unlink()
    video = next(v for v in sample_videos()["val"] if v.vid == "sample040")
    (data / "frames" / "sample040").mkdir(parents=True)
    for k, frame in enumerate(frames(video)):  # Social-IQ 2.0's frames/<vid>/<vid>_%03d.jpg
        Image.fromarray(frame).save(data / "frames" / "sample040" / f"sample040_{k + 1:03d}.jpg")
    read: list[str] = []
    real = clips.read_frames
    monkeypatch.setattr(clips, "read_frames", lambda path, *a, **k: read.append(Path(path).name) or real(path, *a, **k))
    run = tmp_path / "run"
    desiq(
        "eval",
        "--model",
        siq.models["llava15"],
        "--data",
        data,
        "--out",
        run,
        "--limit",
        str(LIMIT),
        "--condition",
        "original",
        "--inputs",
        "q+a+v",
        "--cache-dir",
        tmp_path / "cache",
        "--no-progress",
    )
    assert sorted(read) == ["sample040", "sample041.mp4"]
    assert all(r["missing"] == [] for r in rows_of(run))
