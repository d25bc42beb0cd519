"""Requests (text, image, video and audio parts) to one processor call, the way the model's family takes media.

A video part becomes what the family's :class:`~mmsoc.models.recipes.MediaRecipe` says: the
processor's video input (with ``video_metadata`` where the family reads time), the sampled frames
as several images, or one grid image. Frames and waveforms come from a
:class:`~mmsoc.media.clips.MediaStore`, so each file is decoded once however many requests show it.
The prompt string is the family's template over the parts as the model sees them (a video given as
frames is T image placeholders).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mmsoc.media.clips import MediaStore
from mmsoc.models.base import Audio, Image, Part, Request, Video
from mmsoc.models.families import Family
from mmsoc.models.prompting import PromptFormat
from mmsoc.models.recipes import MediaRecipe

SINGLE_IMAGE = ("blip2", "instructblip")
"""Families whose processor takes exactly one image per prompt."""
SAMPLE_RATE = 16000


class CannotRead(ValueError):
    """A request carries a medium the model cannot take."""


@dataclass
class Prepared:
    """One request as its model sees it: the parts for the prompt template and the decoded media."""

    parts: list[Part] = field(default_factory=list)
    images: list[Any] = field(default_factory=list)
    videos: list[Any] = field(default_factory=list)
    audio: list[np.ndarray] = field(default_factory=list)

    @property
    def frames(self) -> int:
        """Images and video frames the vision tower encodes for this request."""
        return len(self.images) + sum(len(clip.frames) for clip in self.videos)


def grid_image(frames: np.ndarray) -> np.ndarray:
    """(T, H, W, 3) frames tiled row-major into one image of ceil(sqrt(T)) columns (black where none)."""
    t, h, w, c = frames.shape
    cols = math.ceil(math.sqrt(t))
    rows = math.ceil(t / cols)
    out = np.zeros((rows * h, cols * w, c), dtype=frames.dtype)
    for k, frame in enumerate(frames):
        r, col = divmod(k, cols)
        out[r * h : (r + 1) * h, col * w : (col + 1) * w] = frame
    return out


def open_image(path: str) -> Any:
    from PIL import Image as PILImage

    with PILImage.open(path) as image:
        return image.convert("RGB")


def prepare(request: Request, recipe: MediaRecipe, store: MediaStore, images: bool = True) -> Prepared:
    """Decode a request's media (MediaError for an unreadable file; CannotRead for media the model cannot take);
    ``images=False``: leave image files undecoded (for the prompt text alone)."""
    out = Prepared()
    for part in request.parts:
        if isinstance(part, Image):
            if images:
                out.images.append(open_image(part.path))
            out.parts.append(part)
        elif isinstance(part, Video):
            if recipe.video is None:
                raise CannotRead(f"request {request.id!r} carries a video, but this model cannot see video")
            clip = store.clip(part.path).keep(part.frames)
            if recipe.video == "video":
                out.videos.append(clip)
                out.parts.append(part)
            elif recipe.video == "frames":
                out.images += list(clip.frames)
                out.parts += [Image(f"{part.path}#frame{k}") for k in range(len(clip.frames))]
            else:
                out.images.append(grid_image(clip.frames))
                out.parts.append(Image(f"{part.path}#grid"))
        elif isinstance(part, Audio):
            if not recipe.audio:
                raise CannotRead(f"request {request.id!r} carries audio, but this model has no audio input")
            out.audio.append(store.waveform(part.path))
            out.parts.append(part)
        else:
            out.parts.append(part)
    return out


def processor_inputs(
    processor: Any,
    fmt: PromptFormat,
    recipe: MediaRecipe,
    store: MediaStore,
    requests: Sequence[Request],
    padding_side: str = "left",
    qformer_limit: int | None = None,
) -> Any:
    """The processor's batch for ``requests`` (prompts padded on ``padding_side``), on the CPU;
    ``qformer_limit``: the instruction tokens a Q-Former takes (InstructBLIP)."""
    prepared = [prepare(request, recipe, store) for request in requests]
    prompts = [fmt.render(processor, p.parts) for p in prepared]
    kwargs = media_kwargs(fmt.family, recipe, prepared, [r.id for r in requests])
    batch = processor(text=prompts, return_tensors="pt", padding=True, padding_side=padding_side, **kwargs)
    qformer = getattr(processor, "qformer_tokenizer", None)
    if qformer is not None:
        batch.update(qformer_inputs(qformer, prompts, qformer_limit))
    return batch


def qformer_limit(config: Any) -> int | None:
    """Instruction tokens an InstructBLIP Q-Former can place: its position embeddings (None: no Q-Former)."""
    qformer = getattr(config, "qformer_config", None)
    return None if qformer is None else int(qformer.max_position_embeddings)


def qformer_inputs(qformer: Any, prompts: Sequence[str], limit: int | None) -> dict[str, Any]:
    """The Q-Former's instruction tokens, right padded (a BERT-style Q-Former numbers positions from the
    left) and truncated to ``limit`` as the reference implementation (LAVIS) truncates its instruction."""
    encoded = qformer(
        list(prompts),
        padding=True,
        padding_side="right",
        truncation=limit is not None,
        max_length=limit,
        return_tensors="pt",
    )
    return {"qformer_input_ids": encoded["input_ids"], "qformer_attention_mask": encoded["attention_mask"]}


def media_kwargs(family: Family, recipe: MediaRecipe, prepared: Sequence[Prepared], ids: Sequence[str]) -> dict:
    """The processor's media arguments for a batch (images nested per prompt where one has several)."""
    kwargs: dict[str, Any] = {}
    if family in SINGLE_IMAGE and recipe.images:
        lacking = next((i for i, p in zip(ids, prepared) if len(p.images) != 1), None)
        if lacking is not None:
            raise CannotRead(f"request {lacking!r} must carry exactly one image (or video) for a {family} model")
    if any(p.images for p in prepared):
        several = any(len(p.images) > 1 for p in prepared)
        kwargs["images"] = [p.images for p in prepared] if several else [im for p in prepared for im in p.images]
    clips = [clip for p in prepared for clip in p.videos]
    if clips:
        kwargs[recipe.video_kwarg] = [clip.frames for clip in clips]
        if recipe.metadata:
            kwargs["video_metadata"] = [clip.metadata() for clip in clips]
        if not recipe.resample:
            kwargs["do_sample_frames"] = False
        if recipe.fps_kwarg:  # Qwen2.5-Omni reads the frame rate (and the rest) from its videos_kwargs
            kwargs["videos_kwargs"] = {"fps": clips[0].metadata()["fps"], **recipe.video_kwargs}
        else:
            kwargs.update(recipe.video_kwargs)
    audio = [wave for p in prepared for wave in p.audio]
    if audio:
        kwargs["audio"] = audio
        kwargs["sampling_rate"] = SAMPLE_RATE
    return kwargs
