"""Per-family prompt formats: how each model family expects content parts around the task prompt."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from mmsoc.models.base import Audio, Image, Part, Text, Video

Family = Literal["llava", "video_llava", "blip2", "instructblip", "generic"]

_FAMILIES: dict[str, Family] = {
    "llava": "llava",
    "video_llava": "video_llava",
    "blip-2": "blip2",
    "instructblip": "instructblip",
    "instructblipvideo": "instructblip",
}

PLACEHOLDERS = {Image: "<image>", Video: "<video>"}


def detect_family(config: Any) -> Family:
    """Family from a model config's ``model_type`` (anything else is ``generic``)."""
    return _FAMILIES.get(getattr(config, "model_type", ""), "generic")


def text_of(parts: Sequence[Part]) -> str:
    """The text parts joined by newlines."""
    return "\n".join(part.text for part in parts if isinstance(part, Text))


def _inline(parts: Sequence[Part]) -> str:
    """Text parts with a placeholder where each image or video stands (LLaVA-1.5 style)."""
    out, after_text = "", False
    for part in parts:
        if isinstance(part, Text):
            out += ("\n" if after_text else "") + part.text
            after_text = True
        elif isinstance(part, (Image, Video)):
            out += f"{PLACEHOLDERS[type(part)]}\n"
            after_text = False
    return out


_CHAT_TYPES = {Image: "image", Video: "video", Audio: "audio"}


def chat_content(parts: Sequence[Part]) -> list[dict[str, str]]:
    """Content parts in the chat-template format (``{"type": "image"}``, ``{"type": "text", ...}``); audio
    carries its path too (Qwen2-Audio's template draws a clip only where the part has an ``audio`` key)."""
    return [
        {"type": "text", "text": part.text}
        if isinstance(part, Text)
        else {"type": "audio", "audio": part.path}
        if isinstance(part, Audio)
        else {"type": _CHAT_TYPES[type(part)]}
        for part in parts
    ]


FIXED_FORMATS: tuple[Family, ...] = ("llava", "video_llava", "blip2", "instructblip")
"""Families with a prompt format of their own, for checkpoints that ship no chat template."""


def fixed_prompt(family: Family, parts: Sequence[Part]) -> str:
    """The family's own format: LLaVA-1.5 ``USER: <image>\\n{prompt} ASSISTANT:``, Video-LLaVA the same with
    ``<video>`` (transformers' own example: no template ships with its checkpoint); BLIP-2
    ``Question: {prompt} Answer:`` (its processor prepends the query tokens); InstructBLIP the plain prompt."""
    if family in ("llava", "video_llava"):
        return f"USER: {_inline(parts)} ASSISTANT:"
    if family == "blip2":
        return f"Question: {text_of(parts)} Answer:"
    if family == "instructblip":
        return text_of(parts)
    raise ValueError(f"family {family!r} has no fixed prompt format")
