"""Transcripts: WebVTT / SRT parsing (cue times kept) and cue embeddings with a sentence encoder."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mmsoc.media.base import Encoder, MediaError
from mmsoc.media.decode import require_file
from mmsoc.media.sentences import embed_texts

_TIME = r"(?:(\d+):)?(\d{1,2}):(\d{2})[.,](\d{1,3})"
_TIMING = re.compile(rf"^\s*{_TIME}\s*-->\s*{_TIME}")
_TAG = re.compile(r"<[^>]*>")


@dataclass(frozen=True)
class Cue:
    start: float
    end: float
    text: str


def _seconds(h: str | None, m: str, s: str, frac: str) -> float:
    return int(h or 0) * 3600 + int(m) * 60 + int(s) + int(frac.ljust(3, "0")) / 1000


def parse_subtitles(text: str, path: str | Path = "<transcript>", join: str = " ") -> list[Cue]:
    """Cues of a WebVTT or SRT document, in file order; markup tags are removed and a cue's lines are
    joined by ``join`` (a newline keeps them as webvtt-py's ``caption.text`` does).

    A malformed timing line raises MediaError naming the file and line.
    """
    cues: list[Cue] = []
    lines = text.replace("\r\n", "\n").replace("\ufeff", "").split("\n")
    k = 0
    while k < len(lines):
        line = lines[k]
        if "-->" not in line:
            k += 1
            continue
        match = _TIMING.match(line)
        if match is None:
            raise MediaError(path, f"line {k + 1}: malformed cue timing {line.strip()!r}")
        g = match.groups()
        body = []
        k += 1
        while k < len(lines) and lines[k].strip():
            body.append(_TAG.sub("", lines[k]).strip())
            k += 1
        words = join.join(b for b in body if b)
        if words:
            cues.append(Cue(_seconds(*g[:4]), _seconds(*g[4:]), words))
    return cues


def read_subtitles(path: str | Path, join: str = " ") -> list[Cue]:
    """Cues of a .vtt or .srt file; a missing file or one without any spoken text raises MediaError."""
    path = Path(path)
    require_file(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise MediaError(path, f"cannot read transcript ({err})") from None
    cues = parse_subtitles(text, path, join)
    if not cues:
        raise MediaError(path, "transcript has no cues")
    return cues


def transcript_text(path: str | Path) -> str:
    """The transcript as the Social-IQ 2.0 challenge baseline builds its context: every cue's text (its
    lines kept) joined by newlines, without de-duplication."""
    return "\n".join(cue.text for cue in read_subtitles(path, join="\n"))


class TranscriptEncoder(Encoder):
    """(cues x dim) sentence embeddings of a transcript's cues (default: the shipped MiniLM)."""

    modality = "transcript"

    def __init__(self, model: str = "default", max_cues: int | None = None, batch_size: int = 256):
        super().__init__(model, max_cues=max_cues)
        self.batch_size = batch_size

    def load(self, path: Path) -> list[str]:
        return [cue.text for cue in read_subtitles(path)][: self.settings["max_cues"]]

    def embed(self, inputs: list[list[str]]) -> list[np.ndarray]:
        flat = embed_texts([t for cues in inputs for t in cues], model=self.model, batch_size=self.batch_size)
        return np.split(flat, np.cumsum([len(cues) for cues in inputs])[:-1])
