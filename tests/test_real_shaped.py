"""Real-shaped fixtures (``real_shaped.FAMILIES``) loaded through the real path, against the published facts.

Every expected value below is written by hand from the published checkpoint (sources in
``chat_templates/SOURCES.md``): the image / video / audio tokens its processor inserts, the prompt its
chat template (or fixed format) renders for one user turn, the first answer token its tokenizer kind
scores in context. The batch tests check that a batch of eight answers as each request alone does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from media_fixtures import write_clip, write_wav
from PIL import Image as PILImage
from real_shaped import FAMILIES

from mmsoc.models.base import Audio, GenerationSettings, Image, Request, Text, Video

IMAGE_TEXT = "What is shown in this image?"
VIDEO_TEXT = "What happens in this video?"
AUDIO_TEXT = "What is this sound?"
QWEN_SYSTEM = "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
FAST_BATCH = {"qwen2_vl", "qwen2_5_vl"}
"""Families whose batch tests run by default: their processors keep a small image small (4 tokens). Every
other family's tower sees its full published input (336 px, 384 px tiles, 30 s of audio) 32 times per test,
tens of seconds on two CPU cores: those run with ``-m slow``."""
BATCH_IMAGES = {"qwen2_vl": ("tiny", "tiny_wide"), "qwen2_5_vl": ("tiny", "tiny_wide"), "smolvlm": ("wide", "wider")}
"""Images of the batch tests where not the default pair (SmolVLM: 4:1 images, 5 tiles instead of 17)."""


class Folders:
    """Family -> built folder, each built once per session on first use."""

    def __init__(self, root: Path):
        self.root = root
        self._dirs: dict[str, Path] = {}

    def __getitem__(self, family: str) -> Path:
        if family not in self._dirs:
            self._dirs[family] = FAMILIES[family](self.root / family)
        return self._dirs[family]


@pytest.fixture(scope="session")
def folders(tmp_path_factory) -> Folders:
    return Folders(tmp_path_factory.mktemp("real_shaped"))


@pytest.fixture(scope="session")
def media(tmp_path_factory) -> dict[str, str]:
    """Images, a 16-frame clip and two one-second tones."""
    root = tmp_path_factory.mktemp("real_shaped_media")
    out = {}
    images = {
        "red": ((336, 336), (200, 30, 30)),
        "blue": ((448, 336), (30, 30, 200)),
        "tiny": ((56, 56), (200, 200, 30)),
        "tiny_wide": ((112, 56), (30, 200, 200)),
        "wide": ((400, 100), (200, 30, 200)),
        "wider": ((480, 120), (90, 90, 90)),
    }
    for name, (size, color) in images.items():
        PILImage.new("RGB", size, color).save(root / f"{name}.png")
        out[name] = str(root / f"{name}.png")
    out["clip"] = str(write_clip(root / "clip.mp4", (40, 160, 40), 440.0, seconds=2.0, size=(64, 64)))
    out["tone"] = str(write_wav(root / "tone.wav", 440.0))
    out["low"] = str(write_wav(root / "low.wav", 220.0))
    out["cache"] = str(root / "cache")
    return out


# --- 1. the processor inserts the published number of media tokens -------------------------------


def _image(size: tuple[int, int]) -> PILImage.Image:
    return PILImage.new("RGB", size, (120, 30, 200))


def _frames(n: int, side: int) -> np.ndarray:
    return np.full((n, side, side, 3), 90, np.uint8)


MEDIA_CASES: dict[str, tuple[str, dict[str, Any], str, int, dict[str, tuple[int, ...]]]] = {
    # CLIP ViT-L/14 at 336 px: (336 / 14)^2 = 576 patches (class token dropped, "default")
    "llava_1_5": ("USER: <image>\nHi ASSISTANT:", {"images": [_image((500, 400))]}, "<image>", 576,
                  {"pixel_values": (1, 3, 336, 336)}),
    # anyres: a 336x336 image best fits [336, 672]: base 576 + unpadded 24x24 = 576 + 24 newline tokens
    "llava_next": ("[INST] <image>\nHi [/INST]", {"images": [_image((336, 336))]}, "<image>", 1176,
                   {"pixel_values": (1, 3, 3, 336, 336)}),
    # anyres_max_9 with SigLIP at 384 px: base 27^2 = 729 + one 729-patch crop + 27 newline tokens
    "llava_onevision": ("<|im_start|>user <image>\nHi<|im_end|>", {"images": [_image((384, 384))]}, "<image>", 1485,
                        {"pixel_values": (1, 2, 3, 384, 384)}),
    # a frame's 27x27 patches pooled 2x2 to 14x14 = 196 tokens; 8 frames + one newline token
    "llava_onevision:video": ("<|im_start|>user <video>\nHi<|im_end|>", {"videos": [_frames(8, 384)]}, "<video>",
                              1569, {"pixel_values_videos": (1, 8, 3, 384, 384)}),
    "llava_next_video": ("USER: <image>\nHi ASSISTANT:", {"images": [_image((336, 336))]}, "<image>", 1176,
                         {"pixel_values": (1, 3, 3, 336, 336)}),
    # a frame's 24x24 patches average-pooled with stride 2 to 12x12 = 144 tokens; 8 frames
    "llava_next_video:video": ("USER: <video>\nHi ASSISTANT:", {"videos": [_frames(8, 400)]}, "<video>", 1152,
                               {"pixel_values_videos": (1, 8, 3, 336, 336)}),
    # LanguageBind towers at 224 px: an image 16^2 = 256 patches; a video 8 frames x (256 + class token)
    "video_llava": ("USER: <image>\nHi ASSISTANT:", {"images": [_image((300, 240))]}, "<image>", 256,
                    {"pixel_values_images": (1, 3, 224, 224)}),
    "video_llava:video": ("USER: <video>\nHi ASSISTANT:", {"videos": [_frames(8, 256)]}, "<video>", 2056,
                          {"pixel_values_videos": (1, 8, 3, 224, 224)}),
    # SigLIP-so400m at 384 px, every patch kept ("full"): 27^2 = 729
    "llava_interleave": ("<|im_start|>user\n<image>\nHi<|im_end|>", {"images": [_image((500, 300))]}, "<image>", 729,
                         {"pixel_values": (1, 3, 384, 384)}),
    # 448x448: 32x32 patches of 14 px, merged 2x2: 256 tokens; each patch 3 x 2 frames x 14 x 14 = 1176 values
    "qwen2_vl": ("<|vision_start|><|image_pad|><|vision_end|>Hi", {"images": [_image((448, 448))]}, "<|image_pad|>",
                 256, {"pixel_values": (1024, 1176), "image_grid_thw": (1, 3)}),
    "qwen2_5_vl": ("<|vision_start|><|image_pad|><|vision_end|>Hi", {"images": [_image((448, 448))]}, "<|image_pad|>",
                   256, {"pixel_values": (1024, 1176), "image_grid_thw": (1, 3)}),
    # 32 Q-Former queries over a 224 px image
    "blip2_opt": ("Question: Hi Answer:", {"images": [_image((300, 200))]}, "<image>", 32,
                  {"pixel_values": (1, 3, 224, 224)}),
    "blip2_flan_t5": ("Question: Hi Answer:", {"images": [_image((300, 200))]}, "<image>", 32,
                      {"pixel_values": (1, 3, 224, 224)}),
    "instructblip_vicuna": ("Hi", {"images": [_image((300, 200))]}, "<image>", 32,
                            {"pixel_values": (1, 3, 224, 224), "qformer_input_ids": (1, 3)}),
    # a 384 px image resized to 1536 px: 4x4 tiles of 384 px + the global view, 81 tokens each (27^2 / 3^2)
    "smolvlm": ("<|im_start|>User:<image>Hi<end_of_utterance>\nAssistant:", {"images": [[_image((384, 384))]]},
                "<image>", 17 * 81, {"pixel_values": (1, 17, 3, 384, 384)}),
    # one second: 100 mel frames -> (100 - 1) // 2 + 1 = 50 encoder frames, pooled by 2: 25 tokens
    "qwen2_audio": ("<|audio_bos|><|AUDIO|><|audio_eos|>Hi",
                    {"audio": [np.zeros(16000, np.float32)], "sampling_rate": 16000}, "<|AUDIO|>", 25,
                    {"input_features": (1, 128, 3000)}),
}  # fmt: skip
"""Case -> (prompt with one placeholder, processor inputs, placeholder, tokens expected, {input: shape}); a
``family:video`` case reads its family's folder."""


@pytest.mark.parametrize("case", sorted(MEDIA_CASES))
def test_the_processor_inserts_the_published_media_tokens(folders, case):
    from transformers import AutoProcessor

    prompt, media_inputs, placeholder, expected, shapes = MEDIA_CASES[case]
    processor = AutoProcessor.from_pretrained(folders[case.split(":")[0]])
    batch = processor(text=[prompt], return_tensors="pt", **media_inputs)
    token_id = processor.tokenizer.convert_tokens_to_ids(placeholder)
    assert int((batch["input_ids"] == token_id).sum()) == expected
    assert {name: tuple(batch[name].shape) for name in shapes} == shapes
    if "image_grid_thw" in shapes:  # one frame of 32 x 32 patches
        assert batch["image_grid_thw"].tolist() == [[1, 32, 32]]


# --- 2-4. through the backend ---------------------------------------------------------------------


class Models:
    """Family -> HFModel over its folder, each loaded once per session on first use."""

    def __init__(self, folders: Folders, cache_dir: str):
        self.folders, self.cache_dir = folders, cache_dir
        self._models: dict[str, Any] = {}

    def __getitem__(self, family: str):
        from mmsoc.models.backends.hf import HFModel
        from mmsoc.models.registry import MediaSettings

        if family not in self._models:
            settings = MediaSettings(cache_dir=self.cache_dir)
            self._models[family] = HFModel(str(self.folders[family]), device="cpu", dtype="float32", media=settings)
        return self._models[family]


@pytest.fixture(scope="session")
def models(folders, media) -> Models:
    return Models(folders, media["cache"])


def _chatml_user(content: str) -> str:
    return f"<|im_start|>user\n{content}<|im_end|>\n<|im_start|>assistant\n"


IMAGE_PROMPTS = {
    "llava_1_5": f"USER: <image>\n{IMAGE_TEXT} ASSISTANT:",
    "llava_next": f"[INST] <image>\n{IMAGE_TEXT} [/INST]",
    "llava_onevision": f"<|im_start|>user <image>\n{IMAGE_TEXT}<|im_end|><|im_start|>assistant\n",
    "llava_next_video": f"USER: <image>\n{IMAGE_TEXT} ASSISTANT:",
    "llava_interleave": _chatml_user(f"<image>\n{IMAGE_TEXT}"),
    "qwen2_vl": QWEN_SYSTEM + _chatml_user(f"<|vision_start|><|image_pad|><|vision_end|>{IMAGE_TEXT}"),
    "qwen2_5_vl": QWEN_SYSTEM + _chatml_user(f"<|vision_start|><|image_pad|><|vision_end|>{IMAGE_TEXT}"),
    "blip2_opt": f"Question: {IMAGE_TEXT} Answer:",
    "blip2_flan_t5": f"Question: {IMAGE_TEXT} Answer:",
    "instructblip_vicuna": IMAGE_TEXT,
    "smolvlm": f"<|im_start|>User:<image>{IMAGE_TEXT}<end_of_utterance>\nAssistant:",
    "qwen2_audio": QWEN_SYSTEM + _chatml_user(f"Audio 1: <|audio_bos|><|AUDIO|><|audio_eos|>\n{AUDIO_TEXT}"),
    # no chat template ships with LanguageBind/Video-LLaVA-7B-hf: transformers' own example prompt
    # (modeling_video_llava.py: "USER: <video>\nWhy is this video funny? ASSISTANT:")
    "video_llava": f"USER: <image>\n{IMAGE_TEXT} ASSISTANT:",
}
"""One image (Qwen2-Audio: one clip of audio) then the text, rendered by each template by hand."""

FRAMES = 8
"""Frames the backend samples from a clip (its default); image-only families see them as eight images."""
VIDEO_PROMPTS = {
    "llava_1_5": "USER: " + "<image>\n" * FRAMES + f"{VIDEO_TEXT} ASSISTANT:",
    "llava_next": "[INST] " + "<image>\n" * FRAMES + f"{VIDEO_TEXT} [/INST]",
    "llava_onevision": f"<|im_start|>user <video>\n{VIDEO_TEXT}<|im_end|><|im_start|>assistant\n",
    "llava_next_video": f"USER: <video>\n{VIDEO_TEXT} ASSISTANT:",
    "llava_interleave": _chatml_user("<image>" * FRAMES + f"\n{VIDEO_TEXT}"),
    "qwen2_vl": QWEN_SYSTEM + _chatml_user(f"<|vision_start|><|video_pad|><|vision_end|>{VIDEO_TEXT}"),
    "qwen2_5_vl": QWEN_SYSTEM + _chatml_user(f"<|vision_start|><|video_pad|><|vision_end|>{VIDEO_TEXT}"),
    "blip2_opt": f"Question: {VIDEO_TEXT} Answer:",
    "blip2_flan_t5": f"Question: {VIDEO_TEXT} Answer:",
    "instructblip_vicuna": VIDEO_TEXT,
    "smolvlm": "<|im_start|>User:" + "<image>" * FRAMES + f"{VIDEO_TEXT}<end_of_utterance>\nAssistant:",
    "video_llava": f"USER: <video>\n{VIDEO_TEXT} ASSISTANT:",
}
"""A clip then the text: the video placeholder where the family reads video, else the frames (or one grid
image, BLIP-2 and InstructBLIP, whose fixed formats show no placeholder)."""


def _request(family: str, media: dict[str, str], k: int = 0, text: str = IMAGE_TEXT) -> Request:
    """Request ``k``: one of two images (Qwen2-Audio: tones), then ``text``."""
    if family == "qwen2_audio":
        return Request("t", f"r{k}", (Audio(media[("tone", "low")[k % 2]]), Text(text)))
    return Request("t", f"r{k}", (Image(media[BATCH_IMAGES.get(family, ("red", "blue"))[k % 2]]), Text(text)))


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_prompt_of_an_image_is_the_template_rendering(models, media, family):
    model = models[family]
    text = AUDIO_TEXT if family == "qwen2_audio" else IMAGE_TEXT
    assert model.prompts([_request(family, media, text=text)]) == [IMAGE_PROMPTS[family]]


@pytest.mark.parametrize("family", sorted(VIDEO_PROMPTS))
def test_the_prompt_of_a_video_is_the_template_rendering(models, media, family):
    model = models[family]
    request = Request("t", "v", (Video(media["clip"]), Text(VIDEO_TEXT)))
    assert model.prompts([request]) == [VIDEO_PROMPTS[family]]


FIRST_ANSWER_TOKEN = {
    **dict.fromkeys(["llava_1_5", "llava_next", "llava_next_video", "video_llava", "instructblip_vicuna"], "▁A"),
    **dict.fromkeys(["blip2_opt", "smolvlm"], "ĠA"),
    **dict.fromkeys(["llava_onevision", "llava_interleave", "qwen2_vl", "qwen2_5_vl", "qwen2_audio"], "A"),
    "blip2_flan_t5": "▁A",
}
"""The answer "A" after the family's prompt: SentencePiece Llama BPE after ``ASSISTANT:`` / ``[/INST]`` / a
question gets the space delimiter as ``▁A``; byte-level BPE after ``Answer:`` / ``Assistant:`` gets ``ĠA``;
after ChatML's ``assistant\\n`` no space is added, so ``A``; T5 reads the answer alone as its decoder
target, and SentencePiece unigram starts every word with ``▁``."""


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_answer_is_tokenised_in_context_as_the_tokenizer_kind_does(models, family):
    model = models[family]
    tokens = model.answer_tokens(IMAGE_PROMPTS[family], "A")
    assert model.tokenizer.convert_ids_to_tokens(tokens) == [FIRST_ANSWER_TOKEN[family]]


def _batch_requests(family: str, media: dict[str, str]) -> list[Request]:
    texts = [IMAGE_TEXT, "Which answer is right?", f"{IMAGE_TEXT} Answer with a letter.", "Yes or no?"]
    return [_request(family, media, k, texts[k % 4]) for k in range(8)]


BATCH_FAMILIES = [
    pytest.param(family, marks=[] if family in FAST_BATCH else [pytest.mark.slow]) for family in sorted(FAMILIES)
]


@pytest.mark.parametrize("family", BATCH_FAMILIES)
def test_scores_in_a_batch_of_eight_equal_those_alone(models, media, family):
    model = models[family]
    requests = _batch_requests(family, media)
    options = [["A", "B"], ["yes", "no"]] * 4
    together = model.score_options(requests, options)
    alone = [model.score_options([r], [o])[0] for r, o in zip(requests, options)]
    assert [s.loglik for s in together] == [pytest.approx(s.loglik, abs=1e-5) for s in alone]


@pytest.mark.parametrize("family", BATCH_FAMILIES)
def test_greedy_answers_in_a_batch_of_eight_equal_those_alone(models, media, family):
    model = models[family]
    requests = _batch_requests(family, media)
    settings = GenerationSettings(greedy=True, max_new_tokens=4)
    assert model.generate(requests, settings) == [model.generate([r], settings)[0] for r in requests]
