"""Builders shared by the encoder, cache and fusion tests: tiny seeded models saved to folders, test media.

Imported by the test files; holds no tests itself.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import torch

SR = 16000
FPS = 8


def write_clip(
    path: Path, color: tuple[int, int, int], pitch_hz: float, seconds: float = 1.0, size: tuple[int, int] = (64, 32)
) -> Path:
    """An mp4 (mpeg4 video + AAC audio) of one colour and one tone."""
    import av

    w, h = size
    with av.open(str(path), "w", format="mp4") as container:
        video = container.add_stream("mpeg4", rate=FPS)
        video.width, video.height, video.pix_fmt = w, h, "yuv420p"
        audio = container.add_stream("aac", rate=SR, layout="mono")
        image = np.empty((h, w, 3), np.uint8)
        image[:] = color
        for _ in range(int(seconds * FPS)):
            container.mux(video.encode(av.VideoFrame.from_ndarray(image, format="rgb24")))
        container.mux(video.encode())
        wave = tone(pitch_hz, seconds)
        for start in range(0, len(wave), 1024):
            frame = av.AudioFrame.from_ndarray(wave[None, start : start + 1024], format="flt", layout="mono")
            frame.sample_rate, frame.pts, frame.time_base = SR, start, Fraction(1, SR)
            container.mux(audio.encode(frame))
        container.mux(audio.encode())
    return path


def tone(pitch_hz: float, seconds: float = 1.0, sr: int = SR) -> np.ndarray:
    t = np.arange(int(seconds * sr)) / sr
    return (0.3 * np.sin(2 * np.pi * pitch_hz * t)).astype(np.float32)


def write_wav(path: Path, pitch_hz: float, seconds: float = 1.0, sr: int = SR) -> Path:
    import soundfile

    soundfile.write(str(path), tone(pitch_hz, seconds, sr), sr)
    return path


VTT = """WEBVTT

NOTE a comment block

1
00:00:00.000 --> 00:00:01.500
<v Speaker>I feel so happy today.</v>

00:01.500 --> 00:00:03.250 align:start
What a <b>wonderful</b> day,
really.
"""


def build_tiny_open_clip(folder: Path, seed: int = 0) -> Path:
    """An open_clip local folder (open_clip_config.json + weights) of a two-layer 32-pixel ViT."""
    import open_clip
    from safetensors.torch import save_file

    cfg = {
        "embed_dim": 16,
        "vision_cfg": {"image_size": 32, "layers": 2, "width": 32, "patch_size": 8, "head_width": 16},
        "text_cfg": {"context_length": 16, "vocab_size": 64, "width": 32, "heads": 2, "layers": 1},
    }
    torch.manual_seed(seed)
    model = open_clip.model.CLIP(**cfg)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "open_clip_config.json").write_text(json.dumps({"model_cfg": cfg, "preprocess_cfg": {}}))
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(folder / "open_clip_model.safetensors"))
    return folder


def build_tiny_hf_clip(folder: Path, seed: int = 0) -> Path:
    """A transformers CLIP vision model with projection and its image processor."""
    from transformers import CLIPImageProcessor, CLIPVisionConfig, CLIPVisionModelWithProjection

    torch.manual_seed(seed)
    config = CLIPVisionConfig(
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        image_size=32,
        patch_size=8,
        projection_dim=12,
    )
    CLIPVisionModelWithProjection(config).save_pretrained(folder)
    CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}).save_pretrained(folder)
    return folder


def build_tiny_wav2vec2(folder: Path, seed: int = 0) -> Path:
    """A two-layer wav2vec2 encoder and its feature extractor."""
    from transformers import Wav2Vec2Config, Wav2Vec2FeatureExtractor, Wav2Vec2Model

    torch.manual_seed(seed)
    config = Wav2Vec2Config(
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        conv_dim=(16, 16),
        conv_stride=(5, 4),
        conv_kernel=(10, 8),
        num_feat_extract_layers=2,
        num_conv_pos_embeddings=16,
        num_conv_pos_embedding_groups=2,
    )
    Wav2Vec2Model(config).save_pretrained(folder)
    Wav2Vec2FeatureExtractor(feature_size=1, sampling_rate=SR).save_pretrained(folder)
    return folder


def build_tiny_t5(folder: Path, corpus: list[str], seed: int = 0, d_model: int = 64, layers: int = 2) -> Path:
    """A T5 (encoder-decoder checkpoint) with a word-level tokenizer trained on ``corpus``."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration

    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(
        corpus, trainers.WordLevelTrainer(special_tokens=["<pad>", "</s>", "<unk>"], show_progress=False)
    )
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="</s>", unk_token="<unk>")
    config = T5Config(
        vocab_size=len(fast),
        d_model=d_model,
        d_kv=16,
        d_ff=2 * d_model,
        num_layers=layers,
        num_decoder_layers=1,
        num_heads=4,
        dropout_rate=0.0,
        pad_token_id=fast.pad_token_id,
        eos_token_id=fast.eos_token_id,
        decoder_start_token_id=fast.pad_token_id,
    )
    torch.manual_seed(seed)
    T5ForConditionalGeneration(config).save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


def build_tiny_bert(folder: Path, corpus: list[str], seed: int = 0, hidden: int = 48) -> Path:
    """A two-layer BERT encoder with a word-level tokenizer trained on ``corpus`` that adds [CLS] and [SEP],
    as BERT's does."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(corpus, trainers.WordLevelTrainer(special_tokens=specials, show_progress=False))
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))],
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]"
    )
    config = BertConfig(
        vocab_size=len(fast),
        hidden_size=hidden,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=2 * hidden,
        max_position_embeddings=512,
        pad_token_id=fast.pad_token_id,
    )
    torch.manual_seed(seed)
    BertModel(config).save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


def build_tiny_vit(folder: Path, seed: int = 0, hidden: int = 40) -> Path:
    """A two-layer ViT (32-pixel images, 8-pixel patches: 17 tokens) and its image processor."""
    from transformers import ViTConfig, ViTImageProcessor, ViTModel

    torch.manual_seed(seed)
    config = ViTConfig(
        hidden_size=hidden,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=2 * hidden,
        image_size=32,
        patch_size=8,
    )
    ViTModel(config).save_pretrained(folder)
    ViTImageProcessor(size={"height": 32, "width": 32}).save_pretrained(folder)
    return folder
