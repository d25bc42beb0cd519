"""LLaVA-1.5-7B's architecture with random weights, for measuring speed at real size on a GPU.

No weights are downloaded: the dimensions are those of ``llava-hf/llava-1.5-7b-hf`` (a CLIP ViT-L/14 at
336 pixels, a two-layer GELU projector, Llama-2-7B with 32,064 token rows), the image processor is
CLIP's at 336 pixels (576 image tokens a prompt), and the processor carries llava-hf's chat template.
The tokenizer is the tests' small BPE with filler tokens up to the model's rows, so every generated id
decodes to text. Weights are drawn on ``device`` in bfloat16 (seeded) and saved as safetensors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

VISION: dict[str, Any] = dict(
    hidden_size=1024,
    intermediate_size=4096,
    num_hidden_layers=24,
    num_attention_heads=16,
    image_size=336,
    patch_size=14,
    projection_dim=768,
)
TEXT: dict[str, Any] = dict(
    vocab_size=32064,
    hidden_size=4096,
    intermediate_size=11008,
    num_hidden_layers=32,
    num_attention_heads=32,
    num_key_value_heads=32,
    max_position_embeddings=4096,
    rms_norm_eps=1e-5,
)


def llava_15_7b_config(tok):
    """The LlavaConfig of llava-1.5-7b-hf over ``tok``'s special tokens."""
    from tiny_models import llava15_config
    from transformers import LlamaConfig

    text = LlamaConfig(
        **TEXT, pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id
    )
    return llava15_config(tok, VISION, text)


def llava_15_7b_tokenizer():
    """The tests' BPE tokenizer with filler tokens ``w0``, ``w1``, ... up to the model's 32,064 rows."""
    from tiny_models import build_tokenizer

    tok = build_tokenizer()
    tok.add_tokens([f"w{k}" for k in range(TEXT["vocab_size"] - len(tok))])
    return tok


def llava_15_7b_processor(tok):
    """llava-hf's LlavaProcessor: CLIP's image processor at 336 pixels, 576 image tokens a prompt."""
    from tiny_models import llava15_processor

    return llava15_processor(tok, VISION["image_size"], VISION["patch_size"])


def build_llava_15_7b(folder: Path, device: str, chat_template: str, seed: int = 0) -> Path:
    """Save the model (random, bfloat16), its processor and chat template to ``folder``."""
    import torch
    from transformers import LlavaForConditionalGeneration

    tok = llava_15_7b_tokenizer()
    torch.manual_seed(seed)
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)
    try:
        with torch.device(device):
            model = LlavaForConditionalGeneration(llava_15_7b_config(tok)).eval()
    finally:
        torch.set_default_dtype(default)
    model.generation_config.pad_token_id = tok.pad_token_id
    model.save_pretrained(folder)
    llava_15_7b_processor(tok).save_pretrained(folder)
    (folder / "chat_template.jinja").write_text(chat_template)
    return folder
