"""The real-size model of ``benchmarks/bench_harness.py --size llava-1.5-7b`` has LLaVA-1.5-7B's architecture.

Built on the meta device (no memory), its parameters are counted against the published size of
``llava-hf/llava-1.5-7b-hf``, worked out by hand from its parts:

- Llama-2-7B with 32,064 token rows: 6,738,415,616 (the 32,000-row model) + 64 rows x 4,096 x 2
  (embeddings and output) = 6,738,939,904;
- CLIP ViT-L/14 vision tower at 336 pixels: 303,179,776 at 224 pixels + (577 - 257) positions x 1,024
  = 303,507,456;
- projector 1,024 -> 4,096 -> 4,096 with biases: 4,198,400 + 16,781,312 = 20,979,712;

7,063,427,072 in all.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from real_size import llava_15_7b_config, llava_15_7b_processor, llava_15_7b_tokenizer

LLAMA_2_7B = 6_738_415_616 + 64 * 4096 * 2
CLIP_L14_336 = 303_179_776 + (577 - 257) * 1024
PROJECTOR = (1024 * 4096 + 4096) + (4096 * 4096 + 4096)


def test_the_real_size_model_has_llava_15_7b_parameters():
    from transformers import LlavaForConditionalGeneration

    tok = llava_15_7b_tokenizer()
    assert len(tok) == 32064
    with torch.device("meta"):
        model = LlavaForConditionalGeneration(llava_15_7b_config(tok))
    count = sum(p.numel() for p in model.parameters())
    assert count == LLAMA_2_7B + CLIP_L14_336 + PROJECTOR == 7_063_427_072  # the parts, and the published total
    assert sum(p.numel() for p in model.model.vision_tower.parameters()) == CLIP_L14_336


def test_the_real_size_processor_gives_576_image_tokens_and_decodes_every_row():
    tok = llava_15_7b_tokenizer()
    batch = llava_15_7b_processor(tok)(
        images=[Image.new("RGB", (64, 48), (40, 90, 200))],
        text=["USER: <image>\nIs this meme hateful? ASSISTANT:"],
        return_tensors="pt",
    )
    image_token = tok.convert_tokens_to_ids("<image>")
    assert sum(1 for t in batch["input_ids"][0] if t == image_token) == 576
    assert tuple(batch["pixel_values"].shape) == (1, 3, 336, 336)
    assert tok.decode([32063]) == f"w{32063 - 400}"


def test_the_real_size_folder_loads_through_mmsoc_in_bfloat16(tmp_path, monkeypatch):
    """The build and save path, at small widths (the real ones need a GPU): the folder loads with
    ``--dtype bfloat16``, takes 336-pixel images and generates."""
    import real_size
    from api_server import LLAVA15_CHAT_TEMPLATE

    from mmsoc.models.loading import load_hf_model

    text = dict(
        hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2
    )
    vision = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2)
    small = ((real_size.TEXT, text), (real_size.VISION, vision))
    for part, widths in small:
        for key, value in widths.items():
            monkeypatch.setitem(part, key, value)
    folder = real_size.build_llava_15_7b(tmp_path / "m", "cpu", LLAVA15_CHAT_TEMPLATE)
    model, processor, family = load_hf_model(str(folder), dtype="bfloat16", device="cpu")
    assert model.dtype == torch.bfloat16 and family == "llava"
    assert torch.get_default_dtype() == torch.float32
    prompt = processor.apply_chat_template(
        [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "Is this meme hateful?"}]}],
        add_generation_prompt=True,
    )
    batch = processor(images=[Image.new("RGB", (64, 48))], text=[prompt], return_tensors="pt").to(dtype=model.dtype)
    out = model.generate(**batch, max_new_tokens=3, do_sample=False)
    assert out.shape[1] - batch["input_ids"].shape[1] == 3
