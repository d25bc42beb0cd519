"""Model requests for asked questions: the prompt text plus the media the input setting names.

Video (``v``) and audio (``s``) go to the model as parts (``mmsoc.models.base.Video`` and ``Audio``);
the model's family decides how it takes them. A model without an audio input gets the transcript
for ``s`` (the words of the speech), and the run records that choice. A missing media file is normal
in Social-IQ (videos disappear): the question is asked without it and the row says what was missing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desiq.data import media_path
from desiq.inputs import InputSetting
from desiq.llm.conditions import Asked
from desiq.llm.prompts import PromptSpec
from mmsoc.core.io import UsageError
from mmsoc.media.base import MediaError
from mmsoc.models.base import Audio, Part, Request, Text, Video

TASK = "desiq"


@dataclass(frozen=True)
class Built:
    """A request and the media the setting named that it could not carry."""

    request: Request
    answers: list[str]
    missing: list[str] = field(default_factory=list)


class RequestBuilder:
    """Requests for one run: a prompt, an input setting, the media folder and what the model reads."""

    def __init__(self, prompt: PromptSpec, setting: InputSetting, media_root: Path | None, reads: frozenset[str]):
        if "video" in setting.media and "video" not in reads:
            raise UsageError(f"inputs {setting.name} show the video, but this model reads {', '.join(sorted(reads))}")
        self.prompt, self.setting, self.media_root = prompt, setting, media_root
        self.hears = "audio" in setting.media and "audio" in reads
        self._transcripts: dict[str, str | None] = {}

    @property
    def plan(self) -> dict[str, Any]:
        """How each medium of the setting reaches the model (recorded in the run's configuration)."""
        audio = None if "audio" not in self.setting.media else "audio" if self.hears else "transcript"
        return {"transcript": self.wants_transcript, "video": "video" in self.setting.media, "audio": audio}

    @property
    def wants_transcript(self) -> bool:
        return "transcript" in self.setting.media or ("audio" in self.setting.media and not self.hears)

    def build(self, asked: Asked, mask: Sequence[str] = ()) -> Built:
        """The request of one asked question; ``mask``: media to leave out (they could not be decoded)."""
        item, missing = asked.item, list(mask)
        parts: list[Part] = []
        transcript = None
        if not asked.blind and self.media_root is not None:
            for modality, kind in (("video", Video), ("audio", Audio)):
                wanted = modality in self.setting.media and (modality == "video" or self.hears)
                if wanted and modality not in mask:
                    path = media_path(self.media_root, modality, item.video)
                    if path.exists():
                        parts.append(kind(str(path)))
                    else:
                        missing.append(modality)
            if self.wants_transcript:
                transcript = self.transcript(item.video)
                if transcript is None:
                    missing.append("transcript")
        question = item.question if self.setting.question and not asked.blind else ""
        parts.append(Text(self.prompt.render(question, item.options, transcript)))
        request = Request(TASK, f"{item.id}|{asked.condition}|{asked.rotation}", tuple(parts))
        return Built(request, self.prompt.answers(item.options), sorted(set(missing)))

    def transcript(self, video: str) -> str | None:
        """The challenge baseline's context for a video (cue texts joined by newlines), None when unreadable."""
        if video not in self._transcripts:
            from mmsoc.media.transcript import transcript_text

            assert self.media_root is not None
            try:
                self._transcripts[video] = transcript_text(media_path(self.media_root, "transcript", video))
            except MediaError:
                self._transcripts[video] = None
        return self._transcripts[video]

    def media_of(self, built: Built) -> list[str]:
        """The media kinds a request carries as parts (what to leave out when they cannot be decoded)."""
        return [name for name, kind in (("video", Video), ("audio", Audio)) if built.request.media(kind)]
