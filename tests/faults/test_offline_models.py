"""Models that cannot be loaded offline (issue item 13): the weights are neither on the machine nor
downloadable (``HF_HUB_OFFLINE=1``, as on a machine without network). Each command ends in one line
that names the model and says how to get it or which flag uses random or local weights."""

from __future__ import annotations

import pytest

from desiq.fusion.architecture import TEXT_ENCODER

from .harness import run

pytestmark = pytest.mark.slow  # long end-to-end runs: `pytest -m slow`


def test_desiq_train_default_frame_encoder(small_siq, tiny_t5, scratch, cache, tmp_path):
    """The default ``--video-encoder ViT-B-32 --video-pretrained openai``."""
    result = run(
        "desiq",
        "fusion",
        "train",
        "--architecture",
        "ours",
        "--data",
        str(small_siq),
        "--inputs",
        "q+a+v",
        "--backbone",
        str(tiny_t5),
        "--epochs",
        "1",
        "--cache-dir",
        str(tmp_path / "features"),
        "--out",
        str(tmp_path / "model"),
        cwd=scratch,
        cache=cache,
    )
    line = result.error_line()
    assert "frame encoder 'ViT-B-32 (pretrained openai)'" in line
    assert "hf download timm/vit_base_patch32_clip_224.openai" in line and "--video-pretrained none" in line
    assert not (tmp_path / "model").exists()


@pytest.mark.parametrize(
    "prog, args, model, flag",
    [
        (
            "desiq",
            [
                "fusion",
                "train",
                "--architecture",
                "ours",
                "--data",
                "{qa}",
                "--inputs",
                "q+a",
                "--backbone",
                "t5-small",
                "--out",
                "{out}",
            ],
            "T5 backbone 't5-small'",
            "--backbone FOLDER",
        ),
        (
            "desiq",
            ["probe", "--probe", "t5", "--train", "{qa}", "--eval", "{qa}", "--out", "{out}"],
            "T5 backbone 't5-small'",
            "--backbone FOLDER",
        ),
        (
            "desiq",
            [
                "probe",
                "--probe",
                "embed-linear",
                "--encoder",
                "sentence-transformers/all-mpnet-base-v2",
                "--train",
                "{qa}",
                "--eval",
                "{qa}",
                "--out",
                "{out}",
            ],
            "sentence encoder 'sentence-transformers/all-mpnet-base-v2'",
            "--encoder FOLDER",
        ),
        (
            "desiq",
            [
                "fusion",
                "train",
                "--architecture",
                "ours",
                "--data",
                "{siq}",
                "--inputs",
                "q+a+s",
                "--backbone",
                "{t5}",
                "--audio-encoder",
                "facebook/wav2vec2-base",
                "--epochs",
                "1",
                "--cache-dir",
                "{tmp}/features",
                "--out",
                "{out}",
            ],
            "speech encoder 'facebook/wav2vec2-base'",
            "--audio-encoder logmel",
        ),
        (
            "desiq",
            ["fusion", "train", "--data", "{qa}", "--inputs", "q+a", "--backbone", "{t5}", "--out", "{out}"],
            f"text encoder '{TEXT_ENCODER}'",
            "--text-encoder FOLDER",
        ),
        (
            "mmsoc",
            ["eval", "--task", "hate", "--model", "llava-hf/llava-1.5-7b-hf", "--limit", "1", "--out", "{out}"],
            "'llava-hf/llava-1.5-7b-hf'",
            None,
        ),
    ],
    ids=[
        "desiq fusion train --backbone t5-small",
        "desiq probe t5 (default backbone)",
        "desiq probe --encoder hub id",
        "desiq fusion train --audio-encoder hub id",
        "desiq fusion train (paper: default text encoder)",
        "mmsoc eval --model hub id",
    ],
)
def test_a_model_not_on_the_machine_is_named_in_one_line(
    prog, args, model, flag, small_siq, tiny_t5, scratch, cache, tmp_path
):
    filled = [
        a.format(qa=small_siq / "qa" / "qa_train.json", siq=small_siq, t5=tiny_t5, tmp=tmp_path, out=tmp_path / "out")
        for a in args
    ]
    line = run(prog, *filled, cwd=scratch, cache=cache).error_line()
    assert model in line, line
    assert flag is None or flag in line, line
