"""Per-family prompt formats: how each model family expects content parts around the task prompt."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from mmsoc.models.base import Audio, Image, Part, Text, Video

Family = Literal["llava", "blip2", "instructblip", "generic"]

_FAMILIES: dict[str, Family] = {
    "llava": "llava",
    "blip-2": "blip2",
    "instructblip": "instructblip",
    "instructblipvideo": "instructblip",
}

IMAGE_TOKEN = "<image>"


def detect_family(config: Any) -> Family:
    """Family from a model config's ``model_type``; anything unknown uses its chat template."""
    return _FAMILIES.get(getattr(config, "model_type", ""), "generic")


def text_of(parts: Sequence[Part]) -> str:
    """The text parts joined by newlines."""
    return "\n".join(part.text for part in parts if isinstance(part, Text))


def _inline(parts: Sequence[Part]) -> str:
    """Text parts with an image placeholder where each image stands (LLaVA-1.5 style)."""
    out, after_text = "", False
    for part in parts:
        if isinstance(part, Text):
            out += ("\n" if after_text else "") + part.text
            after_text = True
        elif isinstance(part, Image):
            out += f"{IMAGE_TOKEN}\n"
            after_text = False
    return out


_CHAT_TYPES = {Image: "image", Video: "video", Audio: "audio"}


def chat_content(parts: Sequence[Part]) -> list[dict[str, str]]:
    """Content parts in the chat-template format (``{"type": "image"}``, ``{"type": "text", ...}``)."""
    return [
        {"type": "text", "text": part.text} if isinstance(part, Text) else {"type": _CHAT_TYPES[type(part)]}
        for part in parts
    ]


def format_prompt(family: Family, processor: Any, parts: Sequence[Part]) -> str:
    """Turn a request's parts into the model's input string.

    LLaVA-1.5: ``USER: <image>\\n{prompt} ASSISTANT:``; BLIP-2: ``Question: {prompt} Answer:``
    (its processor prepends the query tokens); InstructBLIP: the plain prompt; any other model:
    its processor's chat template with one user turn.
    """
    if family == "llava":
        return f"USER: {_inline(parts)} ASSISTANT:"
    if family == "blip2":
        return f"Question: {text_of(parts)} Answer:"
    if family == "instructblip":
        return text_of(parts)
    return processor.apply_chat_template(
        [{"role": "user", "content": chat_content(parts)}], add_generation_prompt=True, tokenize=False
    )
