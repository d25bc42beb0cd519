"""LoRA targets are found in each family's language model, by the names its architecture uses.

Each family is built from a small config (random weights, nothing downloaded); the expected module
names are written out from the architecture's module layout in transformers (e.g. OPT's attention
``self_attn.{q,k,v,out}_proj`` and MLP ``fc1, fc2`` directly in its decoder layer; T5's ``q, k, v, o``
in every self- and cross-attention block, and gated ``wi_0, wi_1, wo``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
import transformers as tf
from peft import get_peft_model
from peft.tuners.lora import LoraLayer
from safetensors.torch import load_file
from tiny_video_models import build_llava15
from typer.testing import CliRunner

from desiq.cli import app as desiq_app
from desiq.sample import write_sample
from mmsoc.cli import app as mmsoc_app
from mmsoc.core.io import UsageError
from mmsoc.models.loading import load_hf_model
from mmsoc.runners.finetune.data import build_training_set
from mmsoc.runners.finetune.lora_targets import layer_names, lora_targets
from mmsoc.runners.finetune.lora_training import LoraSettings, TrainSettings, train_lora
from mmsoc.tasks.data import load_examples
from mmsoc.tasks.registry import TASKS

H = 16
VISION: dict[str, Any] = dict(
    hidden_size=H, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2, image_size=32, patch_size=8
)
QFORMER: dict[str, Any] = dict(
    vocab_size=64,
    hidden_size=H,
    num_hidden_layers=1,
    num_attention_heads=2,
    intermediate_size=32,
    encoder_hidden_size=H,
)
LLAMA: dict[str, Any] = dict(
    vocab_size=64,
    hidden_size=H,
    intermediate_size=32,
    num_hidden_layers=2,
    num_attention_heads=2,
    num_key_value_heads=2,
)
OPT: dict[str, Any] = dict(
    vocab_size=64, hidden_size=H, ffn_dim=32, num_hidden_layers=2, num_attention_heads=2, word_embed_proj_dim=H
)
FLAN_T5: dict[str, Any] = dict(
    vocab_size=64, d_model=H, d_kv=8, d_ff=32, num_layers=1, num_heads=2, feed_forward_proj="gated-gelu"
)
QWEN2: dict[str, Any] = dict(LLAMA, model_type="qwen2", bos_token_id=1, eos_token_id=2)

LLAMA_ATTENTION = ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj")
LLAMA_MLP = ("mlp.gate_proj", "mlp.up_proj", "mlp.down_proj")


def _per_layer(prefix: str, layers: int, suffixes: tuple[str, ...]) -> list[str]:
    return [f"{prefix}.{i}.{suffix}" for i in range(layers) for suffix in suffixes]


def _t5(prefix: str, part: str) -> list[str]:
    """One-block Flan-T5: encoder and decoder self-attention, decoder cross-attention, gated MLPs."""
    projections = ("q", "k", "v", "o")
    gated = ("wi_0", "wi_1", "wo")
    if part == "attention":
        return [
            *(f"{prefix}.encoder.block.0.layer.0.SelfAttention.{p}" for p in projections),
            *(f"{prefix}.decoder.block.0.layer.0.SelfAttention.{p}" for p in projections),
            *(f"{prefix}.decoder.block.0.layer.1.EncDecAttention.{p}" for p in projections),
        ]
    return [
        *(f"{prefix}.encoder.block.0.layer.1.DenseReluDense.{p}" for p in gated),
        *(f"{prefix}.decoder.block.0.layer.2.DenseReluDense.{p}" for p in gated),
    ]


def _blip(model_class: type, config_class: type, text: tf.PretrainedConfig) -> Callable[[], object]:
    return lambda: model_class(
        config_class(vision_config=VISION, qformer_config=QFORMER, text_config=text.to_dict(), num_query_tokens=2)
    )


def _idefics(model_class: type, config_class: type) -> Callable[[], object]:
    return lambda: model_class(
        config_class(vision_config=VISION, text_config=tf.LlamaConfig(**LLAMA).to_dict(), scale_factor=2)
    )


def _llava():
    text = tf.LlamaConfig(**LLAMA).to_dict()
    return tf.LlavaForConditionalGeneration(
        tf.LlavaConfig(vision_config=tf.CLIPVisionConfig(**VISION).to_dict(), text_config=text)
    )


def _qwen2_vl():
    vision = dict(depth=1, embed_dim=H, hidden_size=H, num_heads=2, mlp_ratio=2, patch_size=4, spatial_merge_size=2)
    text = dict(QWEN2, rope_scaling={"type": "mrope", "mrope_section": [1, 1, 2]})
    return tf.Qwen2VLForConditionalGeneration(tf.Qwen2VLConfig(vision_config=vision, text_config=text))


def _qwen2_audio():
    audio = dict(d_model=H, encoder_layers=1, encoder_attention_heads=2, encoder_ffn_dim=32, num_mel_bins=16)
    return tf.Qwen2AudioForConditionalGeneration(tf.Qwen2AudioConfig(audio_config=audio, text_config=QWEN2))


OPT_ATTENTION = ("self_attn.k_proj", "self_attn.v_proj", "self_attn.q_proj", "self_attn.out_proj")
FAMILIES = {
    # family: (build, where the language model sits, its attention projections, its MLP projections)
    "llava": (
        _llava,
        "model.language_model",
        _per_layer("model.language_model.layers", 2, LLAMA_ATTENTION),
        _per_layer("model.language_model.layers", 2, LLAMA_MLP),
    ),
    "blip2-opt": (
        _blip(tf.Blip2ForConditionalGeneration, tf.Blip2Config, tf.OPTConfig(**OPT)),
        "language_model",
        _per_layer("language_model.model.decoder.layers", 2, OPT_ATTENTION),
        _per_layer("language_model.model.decoder.layers", 2, ("fc1", "fc2")),
    ),
    "blip2-flan-t5": (
        _blip(tf.Blip2ForConditionalGeneration, tf.Blip2Config, tf.T5Config(**FLAN_T5)),
        "language_model",
        _t5("language_model", "attention"),
        _t5("language_model", "mlp"),
    ),
    "instructblip-vicuna": (
        _blip(tf.InstructBlipForConditionalGeneration, tf.InstructBlipConfig, tf.LlamaConfig(**LLAMA)),
        "language_model",
        _per_layer("language_model.model.layers", 2, LLAMA_ATTENTION),
        _per_layer("language_model.model.layers", 2, LLAMA_MLP),
    ),
    "instructblip-flan-t5": (  # its get_decoder() is T5's decoder alone: the encoder is adapted too
        _blip(tf.InstructBlipForConditionalGeneration, tf.InstructBlipConfig, tf.T5Config(**FLAN_T5)),
        "language_model",
        _t5("language_model", "attention"),
        _t5("language_model", "mlp"),
    ),
    "instructblip-video": (
        _blip(tf.InstructBlipVideoForConditionalGeneration, tf.InstructBlipVideoConfig, tf.LlamaConfig(**LLAMA)),
        "language_model",
        _per_layer("language_model.model.layers", 2, LLAMA_ATTENTION),
        _per_layer("language_model.model.layers", 2, LLAMA_MLP),
    ),
    "idefics3": (
        _idefics(tf.Idefics3ForConditionalGeneration, tf.Idefics3Config),
        "model.text_model",
        _per_layer("model.text_model.layers", 2, LLAMA_ATTENTION),
        _per_layer("model.text_model.layers", 2, LLAMA_MLP),
    ),
    "smolvlm": (
        _idefics(tf.SmolVLMForConditionalGeneration, tf.SmolVLMConfig),
        "model.text_model",
        _per_layer("model.text_model.layers", 2, LLAMA_ATTENTION),
        _per_layer("model.text_model.layers", 2, LLAMA_MLP),
    ),
    "qwen2-vl": (
        _qwen2_vl,
        "model.language_model",
        _per_layer("model.language_model.layers", 2, LLAMA_ATTENTION),
        _per_layer("model.language_model.layers", 2, LLAMA_MLP),
    ),
    "qwen2-audio": (
        _qwen2_audio,
        "model.language_model",
        _per_layer("model.language_model.layers", 2, LLAMA_ATTENTION),
        _per_layer("model.language_model.layers", 2, LLAMA_MLP),
    ),
}


@pytest.fixture(params=sorted(FAMILIES))
def family(request):
    build, prefix, attention, mlp = FAMILIES[request.param]
    torch.manual_seed(0)
    return request.param, build(), prefix, attention, mlp


def test_targets_are_the_language_models_attention_projections(family):
    _, model, _, attention, mlp = family
    assert lora_targets(model) == attention
    assert sorted(lora_targets(model, mlp=True)) == sorted(attention + mlp)


def test_only_the_language_model_trains(family):
    _, model, prefix, attention, mlp = family
    peft = get_peft_model(model, LoraSettings(rank=2, alpha=4).peft_config(lora_targets(model, mlp=True)))
    wrapped = [name.removeprefix("base_model.model.") for name, m in peft.named_modules() if isinstance(m, LoraLayer)]
    assert sorted(wrapped) == sorted(attention + mlp)
    trainable = [name for name, p in peft.named_parameters() if p.requires_grad]
    assert len(trainable) == 2 * len(attention + mlp)
    assert all(name.startswith(f"base_model.model.{prefix}.") for name in trainable), trainable


def test_named_layers_apply_inside_the_language_model_for_every_family(family):
    name, model, _, attention, _ = family
    value = "v" if name.endswith("t5") else "v_proj"  # T5 calls its value projection v
    assert lora_targets(model, (value,)) == [target for target in attention if target.endswith(f".{value}")]


def test_a_name_of_the_towers_or_qformer_is_refused_with_the_language_models_names():
    model = FAMILIES["blip2-opt"][0]()
    with pytest.raises(UsageError) as err:
        lora_targets(model, ("q_proj", "query", "qkv"))  # Q-Former and vision-tower layers
    message = str(err.value)
    assert "\n" not in message
    assert message == (
        "--target-modules: no linear layer named query, qkv in the language model (OPTForCausalLM at "
        "language_model); its linear layers are named fc1, fc2, k_proj, lm_head, out_proj, q_proj, v_proj"
    )
    llava = _llava()
    with pytest.raises(UsageError, match=r"named out_proj in .*down_proj, gate_proj, k_proj, lm_head, o_proj"):
        lora_targets(llava, ("out_proj",))  # CLIP's attention output: the vision tower is out of reach


def test_attention_and_the_output_head_together():
    model = _llava()
    assert lora_targets(model, ("attention", "lm_head")) == [*FAMILIES["llava"][2], "lm_head"]
    lm = "model.language_model.layers"
    assert sorted(lora_targets(model, ("q_proj",), mlp=True)) == sorted(
        [f"{lm}.0.self_attn.q_proj", f"{lm}.1.self_attn.q_proj", *_per_layer(lm, 2, LLAMA_MLP)]
    )


def test_target_modules_option_text():
    assert layer_names("attention") == ("attention",) == layer_names(" , ")
    assert layer_names(" q_proj, v_proj ,lm_head") == ("q_proj", "v_proj", "lm_head")


# --- through training and the command lines -------------------------------------------------------


@pytest.fixture(scope="module")
def blip2(tiny_dirs) -> str:
    return tiny_dirs["blip2"]


OPT_LAYERS = "base_model.model.language_model.model.decoder.layers"


def _adapted(folder: Path) -> set[str]:
    """The modules an adapter's weights belong to (``...q_proj`` of ``...q_proj.lora_A.weight``)."""
    keys = load_file(str(folder / "adapter_model.safetensors"))
    return {key.rsplit(".", 2)[0] for key in keys}


def test_one_step_on_blip2_opt_saves_and_reloads_language_model_weights_only(blip2, tmp_path):
    model, processor, family = load_hf_model(blip2)
    examples = load_examples("hate", "sample", "train", limit=2).examples
    training = build_training_set(examples, {"hate": TASKS["hate"].prompt})
    settings = TrainSettings(batch_size=2, micro_batch_size=2, max_steps=1, precision="no")
    result = train_lora(
        model, processor, family, training.items, tmp_path / "ad", LoraSettings(rank=2, alpha=4), settings
    )
    assert result.steps == 1
    expected = {f"{OPT_LAYERS}.{i}.self_attn.{p}" for i in range(2) for p in ("q_proj", "k_proj", "v_proj", "out_proj")}
    assert _adapted(tmp_path / "ad") == expected
    reloaded, _, _ = load_hf_model(blip2, adapter=str(tmp_path / "ad"))  # the adapter goes back where it was trained
    assert {name for name, m in reloaded.named_modules() if isinstance(m, LoraLayer)} == expected


def test_mmsoc_finetune_lora_mlp_and_a_bad_name(blip2, tmp_path):
    args = ["finetune", "--model", blip2, "--task", "hate", "--limit", "2", "--no-progress", "--precision", "no"]
    bad = CliRunner().invoke(mmsoc_app, [*args, "--out", str(tmp_path / "bad"), "--target-modules", "q_proj,query"])
    assert bad.exit_code == 2, bad.output
    assert "no linear layer named query in the language model (OPTForCausalLM" in bad.output
    assert "Traceback" not in bad.output and not (tmp_path / "bad" / "config.json").exists()
    steps = ["--batch-size", "2", "--micro-batch-size", "2", "--max-steps", "1"]
    done = CliRunner().invoke(mmsoc_app, [*args, *steps, "--out", str(tmp_path / "mlp"), "--lora-mlp"])
    assert done.exit_code == 0, done.output
    opt = ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.out_proj", "fc1", "fc2")
    assert _adapted(tmp_path / "mlp") == {f"{OPT_LAYERS}.{i}.{p}" for i in range(2) for p in opt}
    config = json.loads((tmp_path / "mlp" / "finetune_config.json").read_text())
    assert config["lora"]["target_modules"] == ["attention"] and config["lora"]["mlp"] is True


def test_desiq_finetune_lora_mlp(tmp_path):
    sample, model = write_sample(tmp_path / "sample"), build_llava15(tmp_path / "llava")
    args = ["finetune", "--model", model, "--data", sample, "--inputs", "q+a", "--limit", "2", "--no-progress"]
    steps = ["--batch-size", "2", "--micro-batch-size", "2", "--max-steps", "1", "--precision", "no", "--lora-mlp"]
    done = CliRunner().invoke(desiq_app, [str(a) for a in (*args, *steps, "--out", tmp_path / "ad")])
    assert done.exit_code == 0, done.output
    layers = {name.removeprefix("base_model.model.") for name in _adapted(tmp_path / "ad")}
    lm = "model.language_model.layers"
    assert layers == {f"{lm}.{i}.{p}" for i in range(2) for p in LLAMA_ATTENTION + LLAMA_MLP}
