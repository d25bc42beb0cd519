"""Input settings: what a model or probe sees of an item, named by letters (``q+a+t+v+s``)."""

from __future__ import annotations

from dataclasses import dataclass

LETTERS = {"q": "question", "a": "answer", "t": "transcript", "v": "video", "s": "audio"}
MEDIA = ("transcript", "video", "audio")
"""Media modalities in the order their features enter the input sequence."""


@dataclass(frozen=True)
class InputSetting:
    """Which inputs are seen; the options (``a``) always are."""

    question: bool
    media: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> InputSetting:
        letters = [p.strip() for p in text.lower().split("+") if p.strip()]
        unknown = sorted(set(letters) - LETTERS.keys())
        if unknown or "a" not in letters or len(set(letters)) != len(letters):
            raise ValueError(
                f"inputs {text!r}: use letters {'+'.join(LETTERS)} joined by '+', each once, "
                "always with 'a' (e.g. q+a+t)"
            )
        return cls("q" in letters, tuple(m for m in MEDIA if _letter(m) in letters))

    @property
    def name(self) -> str:
        return "+".join(["q"] * self.question + ["a"] + [_letter(m) for m in self.media])

    def text_only(self, who: str) -> InputSetting:
        """This setting, or a ValueError when it has media (which ``who`` cannot see)."""
        if self.media:
            raise ValueError(f"{who} takes inputs a or q+a, not {self.name} (media inputs need --probe fusion)")
        return self


def _letter(modality: str) -> str:
    return next(k for k, v in LETTERS.items() if v == modality)
