"""Input settings (``q+a+t+v+s``) and where each modality's media lives in a Social-IQ 2.0 folder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

LETTERS = {"q": "question", "a": "answer", "t": "transcript", "v": "video", "s": "audio"}
MEDIA = ("transcript", "video", "audio")
"""Media modalities in the order their features enter the input sequence."""

CANDIDATES = {
    "transcript": ("transcript/{vid}.vtt", "transcript/{vid}.srt"),
    "video": ("video/{vid}.mp4", "frames/{vid}"),
    "audio": ("audio/wav/{vid}.wav", "audio/mp3/{vid}.mp3", "video/{vid}.mp4"),
}


@dataclass(frozen=True)
class InputSetting:
    """Which inputs the model sees; the options (``a``) are always scored."""

    question: bool
    media: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> "InputSetting":
        letters = [p.strip() for p in text.lower().split("+") if p.strip()]
        unknown = sorted(set(letters) - LETTERS.keys())
        if unknown or "a" not in letters or len(set(letters)) != len(letters):
            raise ValueError(f"inputs {text!r}: use letters {'+'.join(LETTERS)} joined by '+', each once, "
                             "always with 'a' (e.g. q+a+t)")
        return cls("q" in letters, tuple(m for m in MEDIA if _letter(m) in letters))

    @property
    def name(self) -> str:
        return "+".join(["q"] * self.question + ["a"] + [_letter(m) for m in self.media])


def _letter(modality: str) -> str:
    return next(k for k, v in LETTERS.items() if v == modality)


def media_path(root: Path, modality: str, vid: str) -> Path:
    """The first existing candidate file of a video's modality, else the preferred (missing) one."""
    paths = [root / pattern.format(vid=vid) for pattern in CANDIDATES[modality]]
    return next((p for p in paths if p.exists()), paths[0])
