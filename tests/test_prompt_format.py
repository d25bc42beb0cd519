"""What reaches the model is what the run records: prompt format, decoding settings, Q-Former instructions.

- a checkpoint's own chat template is used (a LLaVA-architecture checkpoint with a ChatML template, as
  llava-interleave-qwen ships, is not given Vicuna's ``USER: ... ASSISTANT:``); ``--chat-template`` replaces
  it; only a checkpoint without one gets its family's format;
- decoding starts from neutral settings, not from the checkpoint's generation_config.json, unless asked;
- an InstructBLIP Q-Former instruction longer than its 512 positions is truncated as LAVIS truncates it.
"""

from __future__ import annotations

import json

import pytest
import torch
from PIL import Image as PILImage
from tiny_models import build_tiny_llava
from typer.testing import CliRunner

from desiq.cli import app
from mmsoc.models.backends.hf import HFModel
from mmsoc.models.base import GenerationSettings, Image, Request, Text

CHATML = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' }}"
    "{% for content in message['content'] %}{% if content['type'] == 'image' %}{{ '<image>\\n' }}"
    "{% elif content['type'] == 'text' %}{{ content['text'] }}{% endif %}{% endfor %}"
    "{{ '<|im_end|>\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
"""llava-hf/llava-interleave-qwen-0.5b-hf's template, reduced to the parts a one-turn prompt uses."""


@pytest.fixture(scope="module")
def llava(tmp_path_factory):
    torch.set_num_threads(1)
    d = tmp_path_factory.mktemp("format")
    image = d / "cat.png"
    PILImage.new("RGB", (40, 30), (200, 30, 30)).save(image)
    return build_tiny_llava(d / "llava"), image


def _request(image) -> Request:
    return Request("t", "1", (Image(str(image)), Text("Is this meme hateful?")))


def test_the_checkpoints_own_template_wins_over_the_familys_format(llava, tmp_path):
    folder, image = llava
    plain = HFModel(str(folder), device="cpu")
    assert plain.prompts([_request(image)]) == ["USER: <image>\nIs this meme hateful? ASSISTANT:"]  # no template
    assert plain.inputs.format.source == "family"
    (folder / "chat_template.jinja").write_text(CHATML)
    try:
        shipped = HFModel(str(folder), device="cpu")
        expected = "<|im_start|>user\n<image>\nIs this meme hateful?<|im_end|>\n<|im_start|>assistant\n"
        assert shipped.prompts([_request(image)]) == [expected]
        assert shipped.inputs.format.source == "checkpoint"
        override = tmp_path / "t.jinja"
        override.write_text("{{ messages[0]['content'][1]['text'] }} =>")
        chosen = HFModel(str(folder), device="cpu", chat_template=str(override))
        assert chosen.prompts([_request(image)]) == ["Is this meme hateful? =>"]
        assert chosen.inputs.format.describe()["source"] == "file"
    finally:
        (folder / "chat_template.jinja").unlink()


def test_answers_are_scored_as_tokenised_after_the_prompt(llava):
    folder, _ = llava
    model = HFModel(str(folder), device="cpu")
    tok = model.tokenizer
    # after "ASSISTANT:" the answer follows a space (lm-evaluation-harness's target delimiter); after a
    # prompt ending in a newline it follows directly; the prompt's own tokens are never scored
    assert tok.decode(model.answer_tokens("USER: x ASSISTANT:", "Yes")) == " Yes"
    assert tok.decode(model.answer_tokens("assistant\n", "Yes")) == "Yes"
    assert tok.convert_ids_to_tokens(model.answer_tokens("USER: x ASSISTANT:", "Yes"))[0].startswith("Ġ")


def test_decoding_ignores_the_checkpoints_generation_config_unless_asked(llava, tmp_path):
    """On LLaVA-1.5's real input side (336 px, 576 image tokens, its Llama tokenizer and chat template)."""
    import shutil

    from real_shaped import build_llava_1_5

    _, image = llava
    folder = build_llava_1_5(tmp_path / "llava15")
    settings = GenerationSettings(greedy=True, max_new_tokens=12)
    requests = [Request("t", str(k), (Image(str(image)), Text(f"Describe picture {k}."))) for k in range(4)]
    plain = HFModel(str(folder), device="cpu")
    base = plain.generate(requests, settings)
    batch = plain.prepare(requests)
    first = plain.model.generate(**batch, max_new_tokens=1, do_sample=False)[:, -1].tolist()  # each reply's 1st token
    copy = tmp_path / "penalised"
    shutil.copytree(folder, copy)
    config = json.loads((copy / "generation_config.json").read_text())
    changes = {"repetition_penalty": 3.0, "top_k": 5, "suppress_tokens": sorted(set(first))}
    (copy / "generation_config.json").write_text(json.dumps({**config, **changes}))
    assert HFModel(str(copy), device="cpu").generate(requests, settings) == base
    suppressed = HFModel(str(copy), device="cpu", generation_config="checkpoint").generate(requests, settings)
    assert all(a != b for a, b in zip(suppressed, base))  # the checkpoint's suppressed first tokens applied
    from mmsoc.models.decoding import describe

    assert describe(str(copy), settings)["repetition_penalty"] == 1.0
    recorded = describe(str(copy), settings, "checkpoint")
    assert recorded["repetition_penalty"] == 3.0 and recorded["suppress_tokens"] == sorted(set(first))
    assert recorded["top_k"] is None and recorded["do_sample"] is False  # sampling settings stay the run's own


def test_desiq_eval_records_the_prompt_format_and_decoding(llava, tmp_path):
    from desiq.sample import write_sample

    folder, _ = llava
    out = tmp_path / "run"
    sample = write_sample(tmp_path / "sample", media=False)
    result = CliRunner().invoke(
        app,
        [
            "eval", "--model", str(folder), "--data", str(sample / "qa" / "qa_val.json"), "--out", str(out),
            "--inputs", "q+a", "--limit", "1", "--condition", "original", "--answer", "generate",
            "--log-prompts", "--no-progress",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    config = json.loads((out / "config.json").read_text())
    assert config["prompt_format"] == {"source": "family", "family": "llava"}
    decoding = config["decoding"]
    assert decoding["do_sample"] is False and decoding["num_beams"] == 1 and decoding["repetition_penalty"] == 1.0
    assert decoding["max_new_tokens"] == 32 and decoding["generation_config"] == "neutral"
    row = json.loads((out / "predictions.jsonl").open().readline())
    assert row["prompt"].startswith("USER: Question: ") and row["prompt"].endswith(" ASSISTANT:")


def test_a_long_instruction_is_truncated_to_the_qformers_positions(tmp_path):
    """InstructBLIP-Vicuna's Q-Former (BERT WordPiece, 512 positions) takes the instruction as LAVIS gives it:
    truncated to its positions, [CLS] first and [SEP] last; the language model still reads the whole prompt."""
    from real_shaped import build_instructblip_vicuna

    model = HFModel(str(build_instructblip_vicuna(tmp_path / "iblip")), device="cpu")
    image = tmp_path / "x.png"
    PILImage.new("RGB", (224, 224)).save(image)
    long = " ".join(["the meme"] * 400)  # 800 words: past the Q-Former's 512 positions
    request = Request("t", "1", (Image(str(image)), Text(long)))
    batch = model.prepare([request])
    qformer = model.processor.qformer_tokenizer
    whole = qformer(long)["input_ids"]
    kept = batch["qformer_input_ids"][0].tolist()
    assert len(whole) > 512 and len(kept) == 512  # the Q-Former's max_position_embeddings
    assert kept[0] == qformer.cls_token_id and kept[-1] == qformer.sep_token_id and kept[1:-1] == whole[1:511]
    assert batch["input_ids"].shape[1] > 800  # the language model's prompt is not cut
    scores = model.score_options([request], [["yes", "no"]])  # no size mismatch in the Q-Former
    assert len(scores[0].loglik) == 2


@pytest.mark.parametrize(("family", "first"), [("llava_1_5", "▁"), ("llava_onevision", "")])
def test_fine_tuning_targets_follow_the_prompt_as_scored_answers_do(tmp_path, family, first):
    """On real-shaped checkpoints: after LLaVA-1.5's "ASSISTANT:" the learnt target starts with a
    space-marked SentencePiece token (as in "ASSISTANT: No"); after OneVision's ChatML "assistant\\n" it
    starts with the bare word, no byte-level space."""
    from real_shaped import FAMILIES

    from mmsoc.models.prompting import format_prompt
    from mmsoc.runners.finetune.collate import IGNORE_INDEX, TrainCollator
    from mmsoc.runners.finetune.data import TrainItem

    model = HFModel(str(FAMILIES[family](tmp_path / family)), device="cpu")
    image = tmp_path / "x.png"
    PILImage.new("RGB", (64, 48), (10, 200, 30)).save(image)
    item = TrainItem(Request("t", "1", (Image(str(image)), Text("Is this meme hateful?"))), "No")
    collator = TrainCollator(model.processor, lambda r: format_prompt(model.family, model.processor, r.parts))
    batch = collator([item])
    learnt = batch["input_ids"][0][batch["labels"][0] != IGNORE_INDEX].tolist()
    tokens = model.tokenizer.convert_ids_to_tokens(learnt)
    assert tokens[-1] == model.tokenizer.eos_token and "".join(tokens[:-1]).lstrip("▁Ġ") == "No"
    assert tokens[0].startswith(first) and not (first == "" and tokens[0][0] in "▁Ġ")
