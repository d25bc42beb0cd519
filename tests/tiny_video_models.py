"""Tiny video-capable multimodal LLMs built from configs with their real processors, saved to a folder.

One image-only family (LLaVA-1.5: video as several images), two video-native families
(LLaVA-OneVision, Qwen2-VL: the processors' video input) and an audio one (Qwen2-Audio). Weights are
random but seeded; the tokenizer is a byte-level BPE trained on the embedded Social-IQ sample, so
prompts stay short.
"""

from __future__ import annotations

from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

from desiq.sample import sample_items

HIDDEN = 32
SIZE = 32
PATCH = 8

LLAVA_SPECIALS = ["<pad>", "<unk>", "<s>", "</s>", "<image>"]
CHATML_SPECIALS = ["<pad>", "<unk>", "<|im_start|>", "<|im_end|>", "<image>", "<video>"]
QWEN_SPECIALS = [
    "<|endoftext|>",
    "<unk>",
    "<|im_start|>",
    "<|im_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|image_pad|>",
    "<|video_pad|>",
]

# ChatML with media first, then text (the llava-hf/llava-onevision-*-hf layout)
CHATML_MEDIA_TEMPLATE = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' }}"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for content in message['content'] | selectattr('type', 'equalto', 'image') %}{{ '<image>\n' }}{% endfor %}"
    "{% for content in message['content'] | selectattr('type', 'equalto', 'video') %}{{ '<video>\n' }}{% endfor %}"
    "{% for content in message['content'] | selectattr('type', 'equalto', 'text') %}{{ content['text'] }}{% endfor %}"
    "{% endif %}{{ '<|im_end|>\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}"
    "{% endif %}"
)
# Qwen2-VL: parts in order, media wrapped in vision start/end
QWEN_VL_TEMPLATE = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' }}"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}{% for content in message['content'] %}"
    "{% if content['type'] == 'image' %}{{ '<|vision_start|><|image_pad|><|vision_end|>' }}"
    "{% elif content['type'] == 'video' %}{{ '<|vision_start|><|video_pad|><|vision_end|>' }}"
    "{% elif content['type'] == 'text' %}{{ content['text'] }}{% endif %}{% endfor %}{% endif %}"
    "{{ '<|im_end|>\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

_PROMPT_WORDS = (
    "USER ASSISTANT user assistant Context Question Answer Choices Transcript Options Respond with only "
    "the index of the more likely correct answer to the question Answer with the letter and text "
    'Explanation A. B. C. D. (0) (1) (2) (3) " : \n'
)


def _corpus() -> list[str]:
    items = sample_items("train") + sample_items("val")
    return [_PROMPT_WORDS] * 5 + [x.question for x in items] + [o for x in items for o in x.options]


def build_tokenizer(specials: list[str], vocab_size: int = 1000, **named: str) -> PreTrainedTokenizerFast:
    """A byte-level BPE tokenizer trained on the sample's questions and options; specials stay atomic."""
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=specials,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(_corpus(), trainer=trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", padding_side="left", **named)


def _text(tok, **extra) -> dict:
    return dict(
        vocab_size=len(tok),
        hidden_size=HIDDEN,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        pad_token_id=tok.pad_token_id,
        eos_token_id=tok.eos_token_id,
        **extra,
    )


def _vision(**extra) -> dict:
    return dict(
        hidden_size=HIDDEN,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        image_size=SIZE,
        patch_size=PATCH,
        **extra,
    )


def _save(model, processor, folder) -> Path:
    folder = Path(folder)
    model.generation_config.pad_token_id = processor.tokenizer.pad_token_id
    model.generation_config.eos_token_id = processor.tokenizer.eos_token_id
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


def build_llava15(folder, seed: int = 0) -> Path:
    """LLaVA-1.5 (CLIP vision + Llama, multi-image): 16 image tokens per 32x32 frame."""
    from tiny_models import llava15_config, llava15_processor
    from transformers import LlamaConfig, LlavaForConditionalGeneration

    tok = build_tokenizer(LLAVA_SPECIALS, pad_token="<pad>", bos_token="<s>", eos_token="</s>")
    text = LlamaConfig(**_text(tok, bos_token_id=tok.bos_token_id))
    config = llava15_config(tok, _vision(), text, image_seq_length=16)
    torch.manual_seed(seed)
    model = LlavaForConditionalGeneration(config).eval()
    return _save(model, llava15_processor(tok, SIZE, PATCH), folder)


def build_llava_onevision(folder, seed: int = 0) -> Path:
    """LLaVA-OneVision (SigLIP + Qwen2): a video is T frames pooled to 4 tokens each, plus a newline token."""
    from transformers import (
        LlavaOnevisionConfig,
        LlavaOnevisionForConditionalGeneration,
        LlavaOnevisionImageProcessor,
        LlavaOnevisionProcessor,
        LlavaOnevisionVideoProcessor,
        Qwen2Config,
        SiglipVisionConfig,
    )

    tok = build_tokenizer(CHATML_SPECIALS, pad_token="<pad>", eos_token="<|im_end|>")
    config = LlavaOnevisionConfig(
        vision_config=SiglipVisionConfig(**_vision()).to_dict(),
        text_config=Qwen2Config(**_text(tok)).to_dict(),
        image_token_index=tok.convert_tokens_to_ids("<image>"),
        video_token_index=tok.convert_tokens_to_ids("<video>"),
        vision_feature_select_strategy="full",
        vision_feature_layer=-1,
        image_grid_pinpoints=[[SIZE, SIZE]],
        pad_token_id=tok.pad_token_id,
    )
    torch.manual_seed(seed)
    model = LlavaOnevisionForConditionalGeneration(config).eval()
    square = {"height": SIZE, "width": SIZE}
    processor = LlavaOnevisionProcessor(
        image_processor=LlavaOnevisionImageProcessor(size=square, image_grid_pinpoints=[[SIZE, SIZE]]),
        video_processor=LlavaOnevisionVideoProcessor(size=square),
        tokenizer=tok,
        num_image_tokens=(SIZE // PATCH) ** 2,
        vision_feature_select_strategy="full",
        chat_template=CHATML_MEDIA_TEMPLATE,
    )
    return _save(model, processor, folder)


def build_qwen2_vl(folder, seed: int = 0) -> Path:
    """Qwen2-VL (ViT with temporal patches of 2 frames + Qwen2 with M-RoPE): 4 tokens per 2 frames."""
    from transformers import (
        Qwen2VLConfig,
        Qwen2VLForConditionalGeneration,
        Qwen2VLImageProcessor,
        Qwen2VLProcessor,
        Qwen2VLVideoProcessor,
    )

    tok = build_tokenizer(QWEN_SPECIALS, pad_token="<|endoftext|>", eos_token="<|im_end|>")
    ids = {
        name: tok.convert_tokens_to_ids(token)
        for name, token in (
            ("image_token_id", "<|image_pad|>"),
            ("video_token_id", "<|video_pad|>"),
            ("vision_start_token_id", "<|vision_start|>"),
            ("vision_end_token_id", "<|vision_end|>"),
        )
    }
    config = Qwen2VLConfig(
        text_config=_text(
            tok,
            bos_token_id=None,
            rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 3, 3]},
        ),
        vision_config=dict(
            depth=2,
            embed_dim=HIDDEN,
            hidden_size=HIDDEN,
            mlp_ratio=2,
            num_heads=2,
            patch_size=PATCH,
            spatial_merge_size=2,
            temporal_patch_size=2,
        ),
        **ids,
    )
    torch.manual_seed(seed)
    model = Qwen2VLForConditionalGeneration(config).eval()
    sizes = dict(
        size={"shortest_edge": 16 * 16, "longest_edge": SIZE * SIZE},
        patch_size=PATCH,
        temporal_patch_size=2,
        merge_size=2,
    )
    processor = Qwen2VLProcessor(
        image_processor=Qwen2VLImageProcessor(**sizes),
        video_processor=Qwen2VLVideoProcessor(**sizes),
        tokenizer=tok,
        chat_template=QWEN_VL_TEMPLATE,
    )
    return _save(model, processor, folder)


# Qwen2-Audio-7B-Instruct's layout: one "Audio N:" line per clip before the text
QWEN_AUDIO_TEMPLATE = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' }}"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}{% for content in message['content'] %}"
    "{% if content['type'] == 'audio' %}{{ 'Audio ' ~ loop.index ~ ': <|audio_bos|><|AUDIO|><|audio_eos|>\n' }}"
    "{% elif content['type'] == 'text' %}{{ content['text'] }}{% endif %}{% endfor %}{% endif %}"
    "{{ '<|im_end|>\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def build_qwen2_audio(folder, seed: int = 0) -> Path:
    """Qwen2-Audio (Whisper-like encoder over 16 mel bins, a 2 s window, + Qwen2): about 25 tokens per second."""
    from transformers import (
        Qwen2AudioConfig,
        Qwen2AudioForConditionalGeneration,
        Qwen2AudioProcessor,
        Qwen2Config,
        WhisperFeatureExtractor,
    )

    tok = build_tokenizer(
        ["<|endoftext|>", "<unk>", "<|im_start|>", "<|im_end|>", "<|AUDIO|>", "<|audio_bos|>", "<|audio_eos|>"],
        pad_token="<|endoftext|>",
        eos_token="<|im_end|>",
    )
    config = Qwen2AudioConfig(
        audio_config=dict(
            num_mel_bins=16,
            encoder_layers=2,
            encoder_attention_heads=2,
            encoder_ffn_dim=64,
            d_model=HIDDEN,
            max_source_positions=100,
        ),
        text_config=Qwen2Config(**_text(tok)).to_dict(),
        audio_token_index=tok.convert_tokens_to_ids("<|AUDIO|>"),
        pad_token_id=tok.pad_token_id,
    )
    torch.manual_seed(seed)
    model = Qwen2AudioForConditionalGeneration(config).eval()
    features = WhisperFeatureExtractor(feature_size=16, sampling_rate=16000, hop_length=160, chunk_length=2, n_fft=400)
    processor = Qwen2AudioProcessor(feature_extractor=features, tokenizer=tok, chat_template=QWEN_AUDIO_TEMPLATE)
    return _save(model, processor, folder)


VIDEO_BUILDERS = {"llava15": build_llava15, "llava_onevision": build_llava_onevision, "qwen2_vl": build_qwen2_vl}
"""Family -> builder(folder, seed=0) -> folder (the video families; ``build_qwen2_audio`` hears instead)."""
