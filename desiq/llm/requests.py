"""Model requests for asked questions: the prompt text plus the media the input setting names.

Video (``v``) and audio (``s``) go to the model as parts (``mmsoc.models.base.Video`` and ``Audio``);
the model's family decides how it takes them. A model without an audio input gets the transcript
for ``s`` (the words of the speech), and the run records that choice. A missing media file is normal
in Social-IQ (videos disappear): the question is asked without it and the row says what was missing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from desiq.data import item_media_path, media_path
from desiq.inputs import InputSetting
from desiq.llm.conditions import Asked
from desiq.llm.prompts import PromptSpec
from mmsoc.core.io import UsageError
from mmsoc.media.base import MediaError
from mmsoc.media.transcript import Cue
from mmsoc.models.base import Audio, Part, Request, Text, Video

TASK = "desiq"


@dataclass(frozen=True)
class Built:
    """A request and the media the setting named that it could not carry; how it was fitted to the
    model's context (``frames`` kept per video, transcript tokens dropped, its prompt tokens)."""

    request: Request
    answers: list[str]
    missing: list[str] = field(default_factory=list)
    frames: int | None = None
    frames_dropped: int = 0
    transcript_tokens_dropped: int = 0
    prompt_tokens: int | None = None


class RequestBuilder:
    """Requests for one run: a prompt, an input setting, the media folder and what the model reads."""

    def __init__(self, prompt: PromptSpec, setting: InputSetting, media_root: Path | None, reads: frozenset[str]):
        if "video" in setting.media and "video" not in reads:
            raise UsageError(f"inputs {setting.name} show the video, but this model reads {', '.join(sorted(reads))}")
        self.prompt, self.setting, self.media_root = prompt, setting, media_root
        self.hears = "audio" in setting.media and "audio" in reads
        self._transcripts: dict[str, list[Cue] | None] = {}
        self._transcript_tokens: dict[str, int] = {}

    @property
    def plan(self) -> dict[str, bool | str | None]:
        """How each medium of the setting reaches the model (recorded in the run's configuration)."""
        audio = None if "audio" not in self.setting.media else "audio" if self.hears else "transcript"
        return {"transcript": self.wants_transcript, "video": "video" in self.setting.media, "audio": audio}

    @property
    def wants_transcript(self) -> bool:
        return "transcript" in self.setting.media or ("audio" in self.setting.media and not self.hears)

    def build(
        self,
        asked: Asked,
        mask: Sequence[str] = (),
        frames: int | None = None,
        transcript_tokens: int | None = None,
        count: Callable[[str], int] | None = None,
    ) -> Built:
        """The request of one asked question; ``mask``: media to leave out (they could not be decoded);
        ``frames``: frames kept per video (0: none); ``transcript_tokens``: the transcript cut to that many
        tokens by ``count`` (the cues nearest the question's time stamps)."""
        item, missing = asked.item, list(mask)
        parts: list[Part] = []
        transcript = None
        if not asked.blind and item.context and self.wants_transcript:
            transcript = transcript_window(context_cues(item.context), item.ts, transcript_tokens, count)
        if not asked.blind and self.media_root is not None:
            for modality, part_type in (("video", Video), ("audio", Audio)):
                wanted = modality in self.setting.media and (modality == "video" or self.hears)
                if wanted and modality not in mask:
                    path = item_media_path(self.media_root, modality, item)
                    if not path.exists():
                        missing.append(modality)
                    elif part_type is Audio:
                        parts.append(Audio(str(path)))
                    elif frames != 0:
                        parts.append(Video(str(path), frames))
            if self.wants_transcript and not item.context:
                cues = self.cues(item.video)
                if cues is None:
                    missing.append("transcript")
                else:
                    transcript = transcript_window(cues, item.ts, transcript_tokens, count)
        question = item.question if self.setting.question and not asked.blind else ""
        parts.append(Text(self.prompt.render(question, item.options, transcript)))
        request = Request(TASK, f"{item.id}|{asked.condition}|{asked.rotation}", tuple(parts))
        return Built(request, self.prompt.answers(item.options), sorted(set(missing)))

    def transcript_length(self, asked: Asked, count: Callable[[str], int]) -> int:
        """Tokens of the whole transcript an asked question shows (0: none), counted once per video."""
        if asked.item.context and not asked.blind and self.wants_transcript:
            return count(transcript_window(context_cues(asked.item.context)))
        cues = None if asked.blind or not self.wants_transcript else self.cues(asked.item.video)
        if cues is None:
            return 0
        if asked.item.video not in self._transcript_tokens:
            self._transcript_tokens[asked.item.video] = count(transcript_window(cues))
        return self._transcript_tokens[asked.item.video]

    def cues(self, video: str) -> list[Cue] | None:
        """A video's transcript cues, None when unreadable."""
        if video not in self._transcripts:
            from mmsoc.media.transcript import read_subtitles

            assert self.media_root is not None
            try:
                self._transcripts[video] = read_subtitles(media_path(self.media_root, "transcript", video), join="\n")
            except MediaError:
                self._transcripts[video] = None
        return self._transcripts[video]

    def media_of(self, built: Built) -> list[str]:
        """The media a request carries as parts (what to leave out when they cannot be decoded)."""
        return [name for name, part_type in (("video", Video), ("audio", Audio)) if built.request.media(part_type)]


def context_cues(context: str) -> list[Cue]:
    """A generic file's context as transcript cues, one per line (untimed: cut from the end when long)."""
    return [Cue(0.0, 0.0, line) for line in context.splitlines() if line.strip()]


def _span(ts: str) -> tuple[float, float] | None:
    """A question's time stamps (``start-end`` seconds), None when absent or unreadable."""
    start, sep, end = ts.partition("-")
    try:
        return (float(start), float(end)) if sep else None
    except ValueError:
        return None


def transcript_window(
    cues: Sequence[Cue], ts: str = "", tokens: int | None = None, count: Callable[[str], int] | None = None
) -> str:
    """The challenge baseline's context (cue texts joined by newlines); with ``tokens``, only the cues
    nearest the question's time stamps (else the first cues) that fit in that many tokens, in time order."""
    if tokens is None or count is None:
        return "\n".join(cue.text for cue in cues)
    span = _span(ts)

    def distance(k: int) -> float:
        if span is None:
            return float(k)
        cue = cues[k]
        return max(span[0] - cue.end, cue.start - span[1], 0.0)

    kept: set[int] = set()
    used = 0
    for k in sorted(range(len(cues)), key=lambda k: (distance(k), k)):
        cost = count(cues[k].text) + (1 if kept else 0)
        if used + cost > tokens:
            break
        kept.add(k)
        used += cost
    return "\n".join(cues[k].text for k in sorted(kept))
