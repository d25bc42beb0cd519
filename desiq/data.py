"""The ``--data`` convention of every ``desiq`` command, and where media live in a Social-IQ folder.

``--data`` is either a Social-IQ folder (``qa/qa_{split}.json``, picked by ``--split``, with media
found by ``vid_name``: ``video/``, ``audio/wav/``, ``transcript/``, ``frames/``) or a single QA file
(any format of ``desiq.formats``); with a single file only input settings without media are allowed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from desiq.formats import read_mcqa
from desiq.inputs import InputSetting
from desiq.records import MCQAItem
from mmsoc.core.io import InputError, UsageError
from mmsoc.core.paths import OutsideRoot, inside

DATA_HELP = (
    "Social-IQ folder (qa/qa_SPLIT.json picked by --split; media by vid_name) or a single QA file "
    "(JSON Lines; then only inputs without media)."
)

CANDIDATES = {
    "transcript": ("transcript/{vid}.vtt", "transcript/{vid}.srt"),
    "video": ("video/{vid}.mp4", "frames/{vid}"),
    "audio": ("audio/wav/{vid}.wav", "audio/mp3/{vid}.mp3", "video/{vid}.mp4"),
}
SPLIT_NAME = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class QAData:
    """The questions a command reads and the folder (if any) their media come from."""

    qa: Path
    media_root: Path | None
    split: str | None

    def items(self) -> list[MCQAItem]:
        return read_mcqa(self.qa)

    def require_media(self, inputs: str | InputSetting) -> None:
        """A UsageError when ``inputs`` need media that a single QA file cannot give."""
        setting = InputSetting.parse(inputs) if isinstance(inputs, str) else inputs
        if setting.media and self.media_root is None:
            raise UsageError(
                f"inputs {setting.name} need media ({', '.join(setting.media)}), but --data {self.qa} "
                "is a single QA file: pass the Social-IQ folder instead"
            )


def qa_data(data: Path, split: str | None = None, default_split: str | None = None) -> QAData:
    """Resolve ``--data`` (and ``--split``) by the convention above."""
    if data.is_dir():
        split = split or default_split
        if split is None:
            raise UsageError(f"--data {data} is a Social-IQ folder: pass --split to pick qa/qa_SPLIT.json")
        if not SPLIT_NAME.fullmatch(split):
            raise UsageError(f"--split {split!r}: use letters, digits, '_' or '-' (e.g. train, val, test)")
        qa = data / "qa" / f"qa_{split}.json"
        if not qa.is_file():
            raise InputError(qa, f"file not found (--data is a Social-IQ folder, so --split {split} reads it)")
        return QAData(qa, data, split)
    if data.is_file():
        if split is not None:
            raise UsageError(f"--split picks a file of a Social-IQ folder, but --data {data} is a single QA file")
        return QAData(data, None, None)
    raise InputError(data, "not found (--data is a Social-IQ folder or a single QA file)")


def hold_out_videos(items: Sequence[MCQAItem], fraction: float, seed: int) -> tuple[list[MCQAItem], list[MCQAItem]]:
    """(rest, held out): the questions of a seeded ``fraction`` of the videos are held out (at least one
    video; with a single video, all questions serve both)."""
    import numpy as np

    videos = sorted({item.video for item in items})
    n_held = max(1, round(fraction * len(videos))) if len(videos) > 1 else 0
    held = set(np.random.default_rng(seed).permutation(videos)[:n_held].tolist())
    rest = [item for item in items if item.video not in held]
    return rest, [item for item in items if item.video in held] or rest


def media_path(root: Path, modality: str, vid: str) -> Path:
    """The first existing candidate file of a video's modality, else the preferred (missing) one.

    ``vid`` comes from the data: a candidate that leads outside its media folder (``video/``,
    ``audio/wav/``, ... after resolving ``..`` and symlinks) is never returned; when none stays
    inside, :class:`~mmsoc.core.paths.OutsideRoot` names the path (the item's modality is then masked).
    """
    paths, refused = [], None
    for pattern in CANDIDATES[modality]:
        folder, name = pattern.rsplit("/", 1)
        try:
            paths.append(inside(root / folder, name.format(vid=vid)))
        except OutsideRoot as err:
            refused = refused or err
    if not paths:
        raise OutsideRoot(f"vid_name {vid!r}: {refused}")
    return next((p for p in paths if p.exists()), paths[0])
