"""Real-shaped model folders: each family's published input side over a two-layer language model.

For every family the vision (or audio) tower has the published image size, patch size and width but
one layer; the image, video and audio processors carry the published settings; the tokenizer is of
the published kind (SentencePiece-style Llama BPE with byte fallback, byte-level BPE, T5 unigram,
BERT WordPiece for a Q-Former) with the real special-token strings kept atomic, trained here on the
embedded Social-IQ sample; the published chat template is kept as data in ``chat_templates/``. Only
the language model is shrunk (two layers of width 64); weights are random but seeded. Where each
fact comes from: ``chat_templates/SOURCES.md``.

``FAMILIES`` maps a family name to ``build(folder, seed=0) -> folder``; tests load the folders back
through the real ``from_pretrained`` path.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
import transformers as hf
from tokenizers import AddedToken, Regex, Tokenizer, models, normalizers, pre_tokenizers, trainers
from transformers.image_utils import OPENAI_CLIP_MEAN, OPENAI_CLIP_STD

from desiq.sample import sample_items

TEMPLATES = Path(__file__).resolve().parent / "chat_templates"
LM = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2)
"""The only shrunk part: the language model."""
CLIP_NORM: dict[str, Any] = dict(image_mean=OPENAI_CLIP_MEAN, image_std=OPENAI_CLIP_STD)
HALF_NORM: dict[str, Any] = dict(image_mean=[0.5, 0.5, 0.5], image_std=[0.5, 0.5, 0.5])
TOWER: dict[str, Any] = dict(num_attention_heads=16, num_hidden_layers=1, patch_size=14)
"""Every vision tower here: 16 heads, 14 px patches, and one layer (the published towers have 24 to 39)."""
CLIP_L14: dict[str, Any] = dict(TOWER, model_type="clip_vision_model", hidden_size=1024, intermediate_size=4096)
SIGLIP_SO400M: dict[str, Any] = dict(TOWER, hidden_size=1152, intermediate_size=4304, image_size=384)
EVA_VIT_G: dict[str, Any] = dict(TOWER, hidden_size=1408, intermediate_size=6144, image_size=224)
LLAVA_SELECT: dict[str, Any] = dict(vision_feature_select_strategy="default", vision_feature_layer=-2)
"""LLaVA-1.5 / NeXT / NeXT-Video / Video-LLaVA: the tower's penultimate layer, its class token dropped."""
LLAVA_PROCESSOR: dict[str, Any] = dict(
    patch_size=14, vision_feature_select_strategy="default", num_additional_image_tokens=1
)
CLIP_336: dict[str, Any] = dict(size={"shortest_edge": 336}, crop_size={"height": 336, "width": 336}, resample=3)
CLIP_336.update(CLIP_NORM)
"""openai/clip-vit-large-patch14-336's preprocessing: shortest edge to 336, centre crop, bicubic."""
LLAVA_NEXT_PINPOINTS = [[336, 672], [672, 336], [672, 672], [1008, 336], [336, 1008]]
ONEVISION_PINPOINTS = [[h, w] for h in range(384, 2305, 384) for w in range(384, 2305, 384)]
SIGLIP_384: dict[str, Any] = dict(size={"height": 384, "width": 384}, resample=3, **HALF_NORM)
QWEN_VL_SPECIALS = ["<|vision_start|>", "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>"]
QWEN_VL_IDS = dict(image_token_id="<|image_pad|>", video_token_id="<|video_pad|>")
QWEN_VL_IDS.update(vision_start_token_id="<|vision_start|>", vision_end_token_id="<|vision_end|>")
QWEN_PRETOKENIZE = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|"""
    r"""\s+(?!\S)|\s+"""
)
SMOLVLM_SPECIALS = ["<fake_token_around_image>", "<image>", "<end_of_utterance>", "<global-img>"] + [
    f"<row_{r}_col_{c}>" for r in range(1, 7) for c in range(1, 7)
]
_PROMPT_WORDS = (
    "USER: ASSISTANT: user assistant system You are a helpful assistant. Question: Answer: [INST] [/INST] "
    "Audio What is shown in this image? What happens in this video? What is this sound? Which answer is right? "
    "A B C D A. B. C. D. (A) (B) (0) (1) yes no Yes No Assistant: User: the a an of to in is it"
)


def corpus() -> list[str]:
    """Tokenizer training text: the Social-IQ sample's questions and options and the prompt words."""
    items = sample_items("train") + sample_items("val")
    return [_PROMPT_WORDS] * 20 + [x.question for x in items] + [o for x in items for o in x.options]


def _trained(tok: Tokenizer, trainer: Any, **options: Any) -> dict:
    """The model part (vocabulary, merges) of ``tok`` trained on the corpus by ``trainer(**options)``."""
    tok.train_from_iterator(corpus(), trainer=trainer(show_progress=False, **options))
    return json.loads(tok.to_str())["model"]


def _atomic(tok: Any, specials: list[str], **named: str) -> Any:
    """Add the family's special tokens (atomic, never split) and name its bos/eos/pad/unk ones."""
    tok.add_tokens([AddedToken(s, special=True, normalized=False) for s in specials], special_tokens=True)
    tok.add_special_tokens(named)
    tok.padding_side = "left"
    return tok


def llama_tokenizer(specials: list[str], *, vocab_size: int = 2000, **named: str) -> Any:
    """SentencePiece-style Llama BPE: ``▁`` word prefix (Metaspace), byte fallback, the BOS added first."""
    tok = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first", split=True)
    byte_tokens = [f"<0x{b:02X}>" for b in range(256)]
    model = _trained(
        tok, trainers.BpeTrainer, vocab_size=vocab_size, special_tokens=["<unk>", "<s>", "</s>", *byte_tokens]
    )
    merges = [tuple(m) for m in model["merges"]]
    renamed = {k: named.pop(k) for k in ("bos_token", "unk_token") if k in named}
    llama = hf.LlamaTokenizer(vocab=model["vocab"], merges=merges, add_bos_token=True, **renamed)
    return _atomic(llama, specials, **named)


def _byte_level(split: Any | None, specials: list[str], vocab_size: int) -> tuple[dict, list]:
    """Vocabulary and merges of a byte-level BPE; ``split``: a pre-tokenizing split before the byte mapping
    (None: GPT-2's own regex)."""
    tok = Tokenizer(models.BPE())
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=split is None)
    tok.pre_tokenizer = byte_level if split is None else pre_tokenizers.Sequence([split, byte_level])
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    model = _trained(
        tok, trainers.BpeTrainer, vocab_size=vocab_size, special_tokens=specials, initial_alphabet=alphabet
    )
    return model["vocab"], [tuple(m) for m in model["merges"]]


def qwen_tokenizer(specials: list[str], vocab_size: int = 2000) -> Any:
    """Qwen2's byte-level BPE (its pre-tokenizing regex, ``Ġ`` for a space, no BOS), ChatML's tokens,
    ``<|endoftext|>`` padding and ``<|im_end|>`` ending a turn."""
    split = pre_tokenizers.Split(Regex(QWEN_PRETOKENIZE), behavior="isolated", invert=False)
    vocab, merges = _byte_level(split, ["<|endoftext|>"], vocab_size)
    tok = hf.Qwen2Tokenizer(vocab=vocab, merges=merges)
    return _atomic(tok, ["<|im_start|>", "<|im_end|>", *specials], pad_token="<|endoftext|>", eos_token="<|im_end|>")


def gpt2_tokenizer(base: list[str], specials: list[str], *, vocab_size: int = 2000, **named: Any) -> Any:
    """GPT-2's byte-level BPE (OPT, SmolLM2): ``base`` tokens first in the vocabulary, ``specials`` added."""
    vocab, merges = _byte_level(None, base, vocab_size)
    return _atomic(hf.GPT2Tokenizer(vocab=vocab, merges=merges, **named), specials)


def t5_tokenizer(vocab_size: int = 2000) -> Any:
    """T5's SentencePiece unigram (``▁`` before every word, ``</s>`` appended, 100 sentinels), ``<image>``."""
    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    specials = ["<pad>", "</s>", "<unk>"]
    model = _trained(tok, trainers.UnigramTrainer, vocab_size=vocab_size, special_tokens=specials, unk_token="<unk>")
    vocab = [tuple(v) for v in model["vocab"]]
    return _atomic(hf.T5Tokenizer(vocab=vocab, extra_ids=100), ["<image>"])


def bert_tokenizer(vocab_size: int = 2000) -> Any:
    """bert-base-uncased's WordPiece (lower-cased) with ``[DEC]`` as BOS, as InstructBLIP's Q-Former reads text."""
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    model = _trained(tok, trainers.WordPieceTrainer, vocab_size=vocab_size, special_tokens=specials)
    bert = hf.BertTokenizer(vocab=model["vocab"])
    bert.add_special_tokens({"bos_token": "[DEC]"})
    bert.padding_side = "right"
    return bert


def template(name: str) -> str:
    return (TEMPLATES / f"{name}.jinja").read_text()


def ids(tok: Any, **names: str) -> dict[str, Any]:
    """Config fields naming token ids: ``ids(tok, image_token_index="<image>")``."""
    return {field: tok.convert_tokens_to_ids(token) for field, token in names.items()}


def text_config(tok: Any, model_type: str, **extra: Any) -> dict[str, Any]:
    """The shrunk language model over ``tok`` (two layers, width 64); ``max_position_embeddings``, where a
    builder gives it, is the published checkpoint's context (LLaVA-1.5's Vicuna-7B v1.5: 4,096; OPT: 2,048)."""
    special = dict(pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)
    fields = {"model_type": model_type, "vocab_size": len(tok), "max_position_embeddings": 16384, **special}
    return {**LM, **fields, **extra}


def save(model_class: Any, config: Any, processor: Any, folder: str | Path, seed: int) -> Path:
    """Seeded random weights, saved with the processor (and its chat template) to ``folder``."""
    folder = Path(folder)
    torch.manual_seed(seed)
    model = model_class(config).eval()
    model.generation_config.pad_token_id = processor.tokenizer.pad_token_id
    model.generation_config.eos_token_id = processor.tokenizer.eos_token_id
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


def _clip_llava(config_class: Any, text: dict[str, Any], image_size: int, **extra: Any) -> Any:
    """A LLaVA config over CLIP ViT-L/14 at ``image_size`` px, its penultimate layer without the class token."""
    return config_class(vision_config=dict(CLIP_L14, image_size=image_size), text_config=text, **LLAVA_SELECT, **extra)


def build_llava_1_5(folder: str | Path, seed: int = 0) -> Path:
    """llava-hf/llava-1.5-7b-hf: CLIP ViT-L/14 at 336 px (576 tokens an image) + Vicuna (Llama tokenizer)."""
    tok = llama_tokenizer(["<image>"], pad_token="<pad>")
    tokens = ids(tok, image_token_index="<image>", pad_token_id="<pad>")
    config = _clip_llava(hf.LlavaConfig, text_config(tok, "llama", max_position_embeddings=4096), 336, **tokens)
    images = hf.CLIPImageProcessor(**CLIP_336)
    processor = hf.LlavaProcessor(images, tok, chat_template=template("llava_1_5"), **LLAVA_PROCESSOR)
    return save(hf.LlavaForConditionalGeneration, config, processor, folder, seed)


def _anyres_336() -> Any:
    return hf.LlavaNextImageProcessor(image_grid_pinpoints=LLAVA_NEXT_PINPOINTS, **CLIP_336)


def build_llava_next(folder: str | Path, seed: int = 0) -> Path:
    """llava-hf/llava-v1.6-mistral-7b-hf: anyres over 336 px CLIP crops + Mistral (Llama-style tokenizer)."""
    tok = llama_tokenizer(["<image>"], pad_token="<pad>")
    extra = dict(image_grid_pinpoints=LLAVA_NEXT_PINPOINTS, **ids(tok, image_token_index="<image>"))
    config = _clip_llava(
        hf.LlavaNextConfig,
        text_config(tok, "mistral", sliding_window=None, max_position_embeddings=32768),
        336,
        **extra,
    )
    processor = hf.LlavaNextProcessor(_anyres_336(), tok, chat_template=template("llava_next"), **LLAVA_PROCESSOR)
    return save(hf.LlavaNextForConditionalGeneration, config, processor, folder, seed)


def build_llava_next_video(folder: str | Path, seed: int = 0) -> Path:
    """llava-hf/LLaVA-NeXT-Video-7B-hf: LLaVA-NeXT images; videos as 336 px frames pooled to 144 tokens each."""
    tok = llama_tokenizer(["<video>", "<image>"], pad_token="<unk>")
    pool = dict(spatial_pool_mode="average", spatial_pool_stride=2, image_grid_pinpoints=LLAVA_NEXT_PINPOINTS)
    tokens = ids(tok, image_token_index="<image>", video_token_index="<video>")
    config = _clip_llava(
        hf.LlavaNextVideoConfig, text_config(tok, "llama", max_position_embeddings=4096), 336, **pool, **tokens
    )
    processor = hf.LlavaNextVideoProcessor(
        video_processor=hf.LlavaNextVideoVideoProcessor(**CLIP_336),
        image_processor=_anyres_336(),
        tokenizer=tok,
        chat_template=template("llava_next_video"),
        **LLAVA_PROCESSOR,
    )
    return save(hf.LlavaNextVideoForConditionalGeneration, config, processor, folder, seed)


def build_video_llava(folder: str | Path, seed: int = 0) -> Path:
    """LanguageBind/Video-LLaVA-7B-hf: LanguageBind image and video towers (ViT-L/14 at 224 px) + Vicuna.

    The published chat template's text was not found (``chat_templates/SOURCES.md``): the folder has none.
    """
    tok = llama_tokenizer(["<image>", "<video>"], pad_token="<pad>")
    tokens = ids(tok, image_token_index="<image>", video_token_index="<video>", pad_token_id="<pad>")
    config = _clip_llava(
        hf.VideoLlavaConfig,
        text_config(tok, "llama", max_position_embeddings=4096),
        224,
        image_seq_length=256,
        video_seq_length=2056,
        **tokens,
    )
    clip_224 = dict(size={"shortest_edge": 224}, crop_size={"height": 224, "width": 224}, resample=3, **CLIP_NORM)
    processor = hf.VideoLlavaProcessor(
        image_processor=hf.VideoLlavaImageProcessor(**clip_224),
        video_processor=hf.VideoLlavaVideoProcessor(**clip_224),
        tokenizer=tok,
        **LLAVA_PROCESSOR,
    )
    return save(hf.VideoLlavaForConditionalGeneration, config, processor, folder, seed)


def _siglip_qwen(tok: Any) -> dict[str, Any]:
    """SigLIP-so400m (no pooling head) before a Qwen2 language model with tied embeddings, every patch kept."""
    return dict(
        vision_config=dict(SIGLIP_SO400M, model_type="siglip_vision_model", vision_use_head=False),
        text_config=text_config(
            tok, "qwen2", bos_token_id=None, tie_word_embeddings=True, max_position_embeddings=32768
        ),
        vision_feature_select_strategy="full",
        vision_feature_layer=-1,
    )


def build_llava_onevision(folder: str | Path, seed: int = 0) -> Path:
    """llava-hf/llava-onevision-qwen2-0.5b-ov-hf: SigLIP-so400m at 384 px (anyres-9) + Qwen2 (byte-level BPE)."""
    tok = qwen_tokenizer(["<image>", "<video>"])
    config = hf.LlavaOnevisionConfig(
        image_grid_pinpoints=ONEVISION_PINPOINTS,
        vision_aspect_ratio="anyres_max_9",
        **_siglip_qwen(tok),
        **ids(tok, image_token_index="<image>", video_token_index="<video>"),
    )
    images = hf.LlavaOnevisionImageProcessor(image_grid_pinpoints=ONEVISION_PINPOINTS, **SIGLIP_384)
    videos = hf.LlavaOnevisionVideoProcessor(**SIGLIP_384)
    kept = dict(num_image_tokens=729, vision_feature_select_strategy="full", vision_aspect_ratio="anyres_max_9")
    processor = hf.LlavaOnevisionProcessor(images, tok, videos, chat_template=template("llava_onevision"), **kept)
    return save(hf.LlavaOnevisionForConditionalGeneration, config, processor, folder, seed)


def build_llava_interleave(folder: str | Path, seed: int = 0) -> Path:
    """llava-hf/llava-interleave-qwen-0.5b-hf: model_type llava over SigLIP-so400m (729 tokens) + Qwen, ChatML."""
    tok = qwen_tokenizer(["<image>"])
    config = hf.LlavaConfig(**_siglip_qwen(tok), **ids(tok, image_token_index="<image>"))
    kept = dict(patch_size=14, vision_feature_select_strategy="full", num_additional_image_tokens=0)
    images = hf.SiglipImageProcessor(**SIGLIP_384)
    processor = hf.LlavaProcessor(images, tok, chat_template=template("llava_interleave"), **kept)
    return save(hf.LlavaForConditionalGeneration, config, processor, folder, seed)


def _qwen_vl(folder: str | Path, seed: int, version: str) -> Path:
    """Qwen2-VL / Qwen2.5-VL: a ViT of 14 px patches over 2-frame temporal patches, 2x2 merged, into Qwen2 with
    M-RoPE (sections scaled to the shrunk head: 4 + 6 + 6 = head_dim / 2)."""
    prefix = {"qwen2_vl": "Qwen2VL", "qwen2_5_vl": "Qwen2_5_VL"}[version]
    tok = qwen_tokenizer(QWEN_VL_SPECIALS)
    vision: dict[str, Any] = dict(depth=1, num_heads=16, patch_size=14, spatial_merge_size=2, temporal_patch_size=2)
    if version == "qwen2_vl":
        vision.update(embed_dim=1280, mlp_ratio=4, hidden_size=LM["hidden_size"])
    else:
        vision.update(hidden_size=1280, intermediate_size=3420, out_hidden_size=LM["hidden_size"], window_size=112)
    rope = {"rope_type": "default", "rope_theta": 1000000.0, "mrope_section": [4, 6, 6]}
    config = getattr(hf, f"{prefix}Config")(
        text_config=text_config(
            tok,
            version.replace("_vl", "_vl_text"),
            bos_token_id=None,
            rope_parameters=rope,
            max_position_embeddings={"qwen2_vl": 32768, "qwen2_5_vl": 128000}[version],
        ),
        vision_config=vision,
        **ids(tok, **QWEN_VL_IDS),
    )
    sizes = dict(patch_size=14, temporal_patch_size=2, merge_size=2, **CLIP_NORM)
    images = hf.Qwen2VLImageProcessor(size={"shortest_edge": 3136, "longest_edge": 12845056}, **sizes)
    videos = hf.Qwen2VLVideoProcessor(**sizes)
    processor = getattr(hf, f"{prefix}Processor")(images, tok, videos, chat_template=template(version))
    return save(getattr(hf, f"{prefix}ForConditionalGeneration"), config, processor, folder, seed)


def build_qwen2_vl(folder: str | Path, seed: int = 0) -> Path:
    """Qwen/Qwen2-VL-7B-Instruct: ViT (width 1280, MLP ratio 4) + Qwen2."""
    return _qwen_vl(folder, seed, "qwen2_vl")


def build_qwen2_5_vl(folder: str | Path, seed: int = 0) -> Path:
    """Qwen/Qwen2.5-VL-7B-Instruct: windowed-attention ViT (width 1280, SwiGLU 3420) + Qwen2.5."""
    return _qwen_vl(folder, seed, "qwen2_5_vl")


def _blip(tok: Any, text: dict[str, Any], processor_class: Any, **extra: Any) -> tuple[dict[str, Any], Any]:
    """BLIP-2's input side: EVA ViT-g/14 at 224 px, a Q-Former (width 768) of 32 queries, one `<image>` a query."""
    parts = dict(
        vision_config=dict(EVA_VIT_G, qkv_bias=True, layer_norm_eps=1e-6),
        qformer_config=dict(hidden_size=768, num_attention_heads=12, intermediate_size=3072, num_hidden_layers=1),
        text_config=text,
        num_query_tokens=32,
        **ids(tok, image_token_index="<image>"),
    )
    parts["qformer_config"]["encoder_hidden_size"] = EVA_VIT_G["hidden_size"]
    images = hf.BlipImageProcessor(size={"height": 224, "width": 224}, resample=3, **CLIP_NORM)
    return parts, processor_class(image_processor=images, tokenizer=tok, num_query_tokens=32, **extra)


def build_blip2_opt(folder: str | Path, seed: int = 0) -> Path:
    """Salesforce/blip2-opt-2.7b: OPT (GPT-2 byte-level BPE, ``</s>`` put first as BOS)."""
    specials: dict[str, Any] = dict(bos_token="</s>", eos_token="</s>", unk_token="</s>", pad_token="<pad>")
    tok = gpt2_tokenizer(["<s>", "<pad>", "</s>", "<unk>"], ["<image>"], add_bos_token=True, **specials)
    text = text_config(tok, "opt", ffn_dim=128, word_embed_proj_dim=LM["hidden_size"], max_position_embeddings=2048)
    parts, processor = _blip(tok, text, hf.Blip2Processor)
    return save(hf.Blip2ForConditionalGeneration, hf.Blip2Config(**parts), processor, folder, seed)


def build_blip2_flan_t5(folder: str | Path, seed: int = 0) -> Path:
    """Salesforce/blip2-flan-t5-xl: the same vision side over Flan-T5 (SentencePiece unigram, encoder-decoder)."""
    tok = t5_tokenizer()
    text = dict(model_type="t5", vocab_size=len(tok), d_model=LM["hidden_size"], d_kv=32, d_ff=128, num_layers=2)
    text.update(num_heads=2, feed_forward_proj="gated-gelu", pad_token_id=tok.pad_token_id)
    text.update(eos_token_id=tok.eos_token_id, decoder_start_token_id=tok.pad_token_id)
    parts, processor = _blip(tok, text, hf.Blip2Processor)
    return save(hf.Blip2ForConditionalGeneration, hf.Blip2Config(**parts), processor, folder, seed)


def build_instructblip_vicuna(folder: str | Path, seed: int = 0) -> Path:
    """Salesforce/instructblip-vicuna-7b: BLIP-2's vision side, an instruction-aware Q-Former (BERT WordPiece +
    ``[DEC]``) and Vicuna (Llama tokenizer with ``</s>`` as BOS and UNK, ``[PAD]`` added)."""
    tok = llama_tokenizer(["<image>"], bos_token="</s>", unk_token="</s>", pad_token="[PAD]")
    qformer_tok = bert_tokenizer()
    parts, processor = _blip(
        tok,
        text_config(tok, "llama", max_position_embeddings=2048),
        hf.InstructBlipProcessor,
        qformer_tokenizer=qformer_tok,
    )
    parts["qformer_config"].update(vocab_size=len(qformer_tok), pad_token_id=qformer_tok.pad_token_id)
    return save(hf.InstructBlipForConditionalGeneration, hf.InstructBlipConfig(**parts), processor, folder, seed)


def build_smolvlm(folder: str | Path, seed: int = 0) -> Path:
    """HuggingFaceTB/SmolVLM-Instruct (Idefics3): SigLIP at 384 px tiles, 81 tokens a tile (pixel shuffle 3), an
    image resized to 1536 px and split into 384 px tiles plus a global view; SmolLM2 (GPT-2 byte-level BPE)."""
    tok = gpt2_tokenizer(
        ["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
        SMOLVLM_SPECIALS,
        bos_token="<|im_start|>",
        eos_token="<end_of_utterance>",
        unk_token="<|endoftext|>",
        pad_token="<|im_end|>",
    )
    vision, text = SIGLIP_SO400M, text_config(tok, "llama", max_position_embeddings=16384)
    config = hf.Idefics3Config(
        vision_config=vision, text_config=text, scale_factor=3, **ids(tok, image_token_id="<image>")
    )
    sizes = dict(size={"longest_edge": 1536}, max_image_size={"longest_edge": 384}, resample=1, **HALF_NORM)
    images = hf.Idefics3ImageProcessor(do_image_splitting=True, **sizes)
    processor = hf.Idefics3Processor(images, tok, image_seq_len=81, chat_template=template("smolvlm"))
    return save(hf.Idefics3ForConditionalGeneration, config, processor, folder, seed)


def build_qwen2_audio(folder: str | Path, seed: int = 0) -> Path:
    """Qwen/Qwen2-Audio-7B-Instruct: a Whisper-large-v3-style encoder (width 1280) over 128 mel bins of 30 s
    (25 tokens a second) + Qwen (byte-level BPE)."""
    tok = qwen_tokenizer(["<|AUDIO|>", "<|audio_bos|>", "<|audio_eos|>"])
    audio = dict(num_mel_bins=128, d_model=1280, encoder_layers=1, encoder_attention_heads=20, encoder_ffn_dim=5120)
    config = hf.Qwen2AudioConfig(
        audio_config=dict(audio, max_source_positions=1500),
        text_config=text_config(tok, "qwen2", bos_token_id=None, max_position_embeddings=8192),
        **ids(tok, audio_token_index="<|AUDIO|>"),
    )
    features = hf.WhisperFeatureExtractor(
        feature_size=128, sampling_rate=16000, hop_length=160, chunk_length=30, n_fft=400, return_attention_mask=True
    )
    processor = hf.Qwen2AudioProcessor(features, tok, chat_template=template("qwen2_audio"))
    return save(hf.Qwen2AudioForConditionalGeneration, config, processor, folder, seed)


FAMILIES: dict[str, Callable[..., Path]] = {
    name.removeprefix("build_"): builder for name, builder in list(globals().items()) if name.startswith("build_")
}
"""Family name -> builder of its real-shaped model folder (``build(folder, seed=0) -> folder``)."""
