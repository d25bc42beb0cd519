"""Tiny image-text-to-text and text-classifier models built from configs, saved to a folder.

Every builder returns the folder it saved to, so tests load models back through the real
``from_pretrained(folder)`` path. Weights are random but seeded: same seed, same bytes.
"""

from __future__ import annotations

from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import (
    BertConfig,
    BertForSequenceClassification,
    Blip2Config,
    Blip2ForConditionalGeneration,
    Blip2Processor,
    BlipImageProcessor,
    CLIPImageProcessor,
    CLIPVisionConfig,
    InstructBlipConfig,
    InstructBlipForConditionalGeneration,
    InstructBlipProcessor,
    LlamaConfig,
    LlamaForCausalLM,
    LlavaConfig,
    LlavaForConditionalGeneration,
    LlavaProcessor,
    OPTConfig,
    PreTrainedTokenizerFast,
    T5Config,
    T5ForConditionalGeneration,
)

from mmsoc.tasks.mmsoc.youtube2000 import YOUTUBE_TOPICS
from mmsoc.tasks.registry import TASKS

IMAGE_SIZE = 32
PATCH = 8
HIDDEN = 32
SPECIALS = ["<pad>", "<unk>", "<s>", "</s>", "<image>"]

_WORDS = (
    "Yes No yes no the a an is this meme news image text pair misinformation answer or and of in to "
    "USER ASSISTANT Question Answer describe scene colors texture cultural social context video title "
    "description thumbnail tags commas example sports tennis french-open what overall sentiment "
    "expressed through quotes double enclose predict following online different must separated "
    "fake true real story claim photo cat dog people man woman funny joke words text"
)


def _corpus() -> list[str]:
    """Training text for the tokenizer: prompts, label words, topics, punctuation."""
    specs = [spec for spec in TASKS.values() if spec.suite == "mmsoc"]
    lines = [spec.prompt for spec in specs]
    lines += [" ".join(spec.labels) for spec in specs]
    lines += [", ".join(YOUTUBE_TOPICS), _WORDS, "\" ' , . : ; ? ! ( ) - _ 0 1 2 3 4 5 6 7 8 9"]
    return lines * 3


def _text_suite_corpus() -> list[str]:
    """Training text for the text-LM tokenizer: the SocKET and SuperTweetEval prompts, labels and options."""
    specs = [spec for spec in TASKS.values() if spec.suite != "mmsoc"]
    lines = [spec.prompt for spec in specs] + [" ".join(spec.labels) for spec in specs]
    lines += [" ".join(option for option, _ in spec.answers) for spec in specs]
    return [*lines, _WORDS, "\" ' , . : ; ? ! ( ) [ ] - _ # @ 0 1 2 3 4 5 6 7 8 9"] * 3


def build_tokenizer(folder: str | Path | None = None, corpus: list[str] | None = None) -> PreTrainedTokenizerFast:
    """A byte-level BPE tokenizer (~400 tokens) trained on the MM-Soc prompts and labels (or ``corpus``)."""
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=SPECIALS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(corpus or _corpus(), trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        pad_token="<pad>",
        unk_token="<unk>",
        bos_token="<s>",
        eos_token="</s>",
        padding_side="left",
    )
    if folder is not None:
        fast.save_pretrained(folder)
    return fast


def _vision(**extra) -> dict:
    return dict(
        hidden_size=HIDDEN,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        image_size=IMAGE_SIZE,
        patch_size=PATCH,
        **extra,
    )


def _llama(vocab: int, tok) -> LlamaConfig:
    return LlamaConfig(
        vocab_size=vocab,
        hidden_size=HIDDEN,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=512,
        pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
    )


def _save(model, processor, folder: str | Path) -> Path:
    folder = Path(folder)
    model.generation_config.pad_token_id = processor.tokenizer.pad_token_id
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


def llava15_config(tok, vision: dict, text: LlamaConfig, **extra) -> LlavaConfig:
    """LLaVA-1.5's wiring over a CLIP tower of ``vision`` and the Llama ``text``: the tower's penultimate
    layer without its class token, a GELU projector, ``tok``'s ``<image>`` and pad tokens."""
    return LlavaConfig(
        vision_config=CLIPVisionConfig(**vision).to_dict(),
        text_config=text.to_dict(),
        image_token_index=tok.convert_tokens_to_ids("<image>"),
        vision_feature_select_strategy="default",
        vision_feature_layer=-2,
        projector_hidden_act="gelu",
        pad_token_id=tok.pad_token_id,
        **extra,
    )


def llava15_processor(tok, image_size: int, patch: int) -> LlavaProcessor:
    """LLaVA-1.5's processor: CLIP's image processor at ``image_size`` pixels, one token per patch."""
    return LlavaProcessor(
        image_processor=CLIPImageProcessor(
            size={"shortest_edge": image_size}, crop_size={"height": image_size, "width": image_size}
        ),
        tokenizer=tok,
        patch_size=patch,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
    )


def build_tiny_llava(folder: str | Path, seed: int = 0) -> Path:
    """A two-layer LLaVA-1.5-style model (CLIP vision tower + Llama) with its LlavaProcessor."""
    tok = build_tokenizer()
    config = llava15_config(tok, _vision(), _llama(len(tok), tok))
    torch.manual_seed(seed)
    model = LlavaForConditionalGeneration(config).eval()
    return _save(model, llava15_processor(tok, IMAGE_SIZE, PATCH), folder)


def _blip_parts(tok, query_tokens: int) -> dict:
    return dict(
        vision_config=dict(_vision(), layer_norm_eps=1e-5),
        qformer_config=dict(
            vocab_size=len(tok),
            hidden_size=HIDDEN,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=64,
            encoder_hidden_size=HIDDEN,
            max_position_embeddings=512,
            pad_token_id=tok.pad_token_id,
        ),
        num_query_tokens=query_tokens,
        image_token_index=tok.convert_tokens_to_ids("<image>"),
    )


def _blip_images() -> BlipImageProcessor:
    return BlipImageProcessor(size={"height": IMAGE_SIZE, "width": IMAGE_SIZE})


def build_tiny_blip2(folder: str | Path, seed: int = 0, query_tokens: int = 4) -> Path:
    """A BLIP-2 model (ViT + Q-Former + two-layer OPT) with its Blip2Processor."""
    tok = build_tokenizer()
    tok.add_tokens(["<image>"], special_tokens=True)
    opt = OPTConfig(
        vocab_size=len(tok),
        hidden_size=HIDDEN,
        ffn_dim=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        word_embed_proj_dim=HIDDEN,
        max_position_embeddings=512,
        pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
    )
    config = Blip2Config(text_config=opt.to_dict(), **_blip_parts(tok, query_tokens))
    torch.manual_seed(seed)
    model = Blip2ForConditionalGeneration(config).eval()
    processor = Blip2Processor(image_processor=_blip_images(), tokenizer=tok, num_query_tokens=query_tokens)
    return _save(model, processor, folder)


def build_tiny_instructblip(folder: str | Path, seed: int = 0, query_tokens: int = 4) -> Path:
    """An InstructBLIP model (ViT + instruction-aware Q-Former + two-layer Llama) with its processor."""
    tok = build_tokenizer()
    qformer_tok = build_tokenizer()
    qformer_tok.padding_side = "right"
    config = InstructBlipConfig(text_config=_llama(len(tok), tok).to_dict(), **_blip_parts(tok, query_tokens))
    torch.manual_seed(seed)
    model = InstructBlipForConditionalGeneration(config).eval()
    processor = InstructBlipProcessor(
        image_processor=_blip_images(), tokenizer=tok, qformer_tokenizer=qformer_tok, num_query_tokens=query_tokens
    )
    return _save(model, processor, folder)


def build_tiny_bert_classifier(folder: str | Path, seed: int = 0) -> Path:
    """A two-layer BERT sequence classifier with the tiny tokenizer (labels set at fine-tuning)."""
    folder = Path(folder)
    tok = build_tokenizer()
    config = BertConfig(
        vocab_size=len(tok),
        hidden_size=HIDDEN,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
        pad_token_id=tok.pad_token_id,
    )
    torch.manual_seed(seed)
    BertForSequenceClassification(config).save_pretrained(folder)
    tok.padding_side = "right"
    tok.save_pretrained(folder)
    return folder


def build_tiny_causal_lm(folder: str | Path, seed: int = 0) -> Path:
    """A two-layer Llama text LM with a tokenizer trained on the text suites' prompts."""
    folder = Path(folder)
    tok = build_tokenizer(corpus=_text_suite_corpus())
    torch.manual_seed(seed)
    model = LlamaForCausalLM(_llama(len(tok), tok)).eval()
    model.generation_config.pad_token_id = tok.pad_token_id
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def build_tiny_seq2seq_lm(folder: str | Path, seed: int = 0) -> Path:
    """A two-layer T5 encoder-decoder with the text suites' tokenizer (right padding, as T5 reads)."""
    folder = Path(folder)
    tok = build_tokenizer(corpus=_text_suite_corpus())
    tok.padding_side = "right"
    config = T5Config(
        vocab_size=len(tok),
        d_model=HIDDEN,
        d_kv=16,
        d_ff=64,
        num_layers=2,
        num_heads=2,
        pad_token_id=tok.pad_token_id,
        eos_token_id=tok.eos_token_id,
        decoder_start_token_id=tok.pad_token_id,
    )
    torch.manual_seed(seed)
    model = T5ForConditionalGeneration(config).eval()
    model.generation_config.pad_token_id = tok.pad_token_id
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


BUILDERS = {"llava": build_tiny_llava, "blip2": build_tiny_blip2, "instructblip": build_tiny_instructblip}
"""Family name -> builder of a tiny image-text-to-text model folder."""
