"""What a request puts on the wire to an OpenAI-compatible server, and what it may cost there.

Content parts follow the request's parts in order: text as text, images and uniformly sampled video frames
(``VIDEO_FRAMES``, JPEG) as base64 data URLs in ``image_url`` parts; :func:`decoding` gives the sampling fields.
:class:`ContextBudget` keeps the text of a call within ``--max-context`` tokens; :func:`continuation_loglik` reads an
option's log-likelihood from the server's prompt log-probabilities.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable, Sequence
from typing import Any

from mmsoc.models.base import Audio, GenerationSettings, Image, Part, Request, Text, Video

VIDEO_FRAMES = 8
"""Frames sampled uniformly from each video (or frame folder) and sent as images."""
JPEG_QUALITY = 90
CHARS_PER_TOKEN = 4
"""Characters per token of the estimate of a prompt's length where the server counts no tokens."""


def image_url(path: str) -> str:
    """The image file as a data URL (its own bytes, with the MIME type of the format PIL finds)."""
    from PIL import Image as PILImage

    with open(path, "rb") as handle:
        data = handle.read()
    with PILImage.open(io.BytesIO(data)) as image:
        mime = PILImage.MIME.get(image.format or "", "image/png")
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def frame_urls(path: str, frames: int = VIDEO_FRAMES) -> list[str]:
    """Uniformly sampled frames of a video file or frame folder, each a JPEG data URL."""
    from PIL import Image as PILImage

    from mmsoc.media.decode import read_frames

    urls = []
    for frame in read_frames(path, num_frames=frames):
        buffer = io.BytesIO()
        PILImage.fromarray(frame).save(buffer, format="JPEG", quality=JPEG_QUALITY)
        urls.append(f"data:image/jpeg;base64,{base64.b64encode(buffer.getvalue()).decode()}")
    return urls


def content(request_parts: Sequence[Part]) -> list[dict[str, Any]]:
    """Request parts as chat content parts, in order; unreadable media raise ValueError naming the file."""
    from mmsoc.media.base import MediaError

    parts: list[dict[str, Any]] = []
    for part in request_parts:
        try:
            if isinstance(part, Text):
                parts.append({"type": "text", "text": part.text})
            elif isinstance(part, Image):
                parts.append({"type": "image_url", "image_url": {"url": image_url(part.path)}})
            elif isinstance(part, Video):
                parts += [{"type": "image_url", "image_url": {"url": url}} for url in frame_urls(part.path)]
            elif isinstance(part, Audio):
                raise ValueError(f"{part.path}: the openai backend sends no audio")
        except (OSError, MediaError) as err:
            raise ValueError(f"cannot read {getattr(part, 'path', '')}: {err}") from None
    return parts


def decoding(settings: GenerationSettings, request: Request) -> dict[str, Any]:
    """Sampling fields of a call: greedy -> temperature 0; nucleus -> temperature and top-p; the request's seed."""
    fields: dict[str, Any] = {"max_tokens": settings.max_new_tokens, "seed": request.rng_seed}
    if settings.greedy:
        fields["temperature"] = 0.0
    else:
        fields.update(temperature=settings.temperature, top_p=settings.top_p)
    return fields


class ContextBudget:
    """``--max-context`` on a server: a call's prompt text in tokens, plus what the call adds (the new tokens, or
    the longest option), must fit. The text is counted by ``count(text, special_tokens)`` (the server's
    ``/tokenize``) or, without one, estimated as ceil(characters / 4). Media are not counted: what an image or a
    frame costs in tokens is the server's business."""

    def __init__(self, limit: int, count: Callable[[str, bool], int] | None):
        if limit < 1:
            raise ValueError(f"--max-context must be >= 1, got {limit}")
        self.limit, self.count = limit, count
        self.how = "counted by the server's /tokenize" if count else "an estimate, ceil(characters / 4)"

    def tokens(self, text: str, special: bool) -> int:
        return self.count(text, special) if self.count else -(-len(text) // CHARS_PER_TOKEN)

    def check(self, where: str, prompt: str, new_tokens: int = 0, options: Sequence[str] = ()) -> None:
        """Raise ValueError naming ``where`` and the count when the call does not fit."""
        text = self.tokens(prompt, True)
        longest = max((self.tokens(option, False) for option in options), default=0)
        total = text + new_tokens + longest
        if total > self.limit:
            adds = f" + {new_tokens} new" if new_tokens else f" + {longest} of its longest option" if options else ""
            raise ValueError(
                f"{where}: {total} tokens, over --max-context {self.limit}: {text} of prompt text ({self.how}){adds}; "
                "media not counted"
            )

    @property
    def description(self) -> str:
        return f"--max-context {self.limit}: prompt text {self.how}, media not counted"


def continuation_loglik(
    context: tuple[int, list[int] | None], ids: list[int] | None, logprobs: list[Any], where: str
) -> float:
    """Sum of the prompt log-probabilities of the tokens after the context.

    ``context`` is (length, token ids or None) of the prompt alone; ``ids`` the token ids of the
    prompt with the option (None when the server does not return them: then each position's entry
    must be the prompt token's alone, as ``prompt_logprobs=0`` gives). Where both id lists are
    known, the option starts after their common prefix (a tokenizer may merge across the boundary).
    """
    start, context_ids = context
    if ids is not None and context_ids is not None:
        start = next((i for i, (a, b) in enumerate(zip(context_ids, ids)) if a != b), min(len(context_ids), len(ids)))
    if start >= len(logprobs):
        raise ValueError(
            f"{where}: the server's prompt_logprobs end at position {len(logprobs)}, before the option (from {start})"
        )
    total = 0.0
    for position in range(start, len(logprobs)):
        entry = logprobs[position] or {}
        if ids is not None:
            token = entry.get(str(ids[position]), entry.get(ids[position]))
        else:
            token = next(iter(entry.values())) if len(entry) == 1 else None
        if token is None:
            raise ValueError(f"{where}: the server's prompt_logprobs lack the prompt token at position {position}")
        total += float(token["logprob"] if isinstance(token, dict) else token.logprob)
    return total
