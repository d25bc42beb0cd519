"""The ``--data`` convention of every ``desiq`` command, and where media live in a Social-IQ folder.

``--data`` is either a Social-IQ folder (``qa/qa_{split}.json``, picked by ``--split``, with media
found by ``vid_name``: ``video/``, ``audio/wav/``, ``transcript/``, ``frames/``) or a single QA file
(any format of ``desiq.formats``, detected by content or named by ``--format``); with a single file only
input settings without media are allowed, except what a generic file carries: its context column (shown
as the transcript) and its media column (files under ``--media-root``, default the file's folder).

``--data sample`` is the embedded sample (``desiq.sample``: train and val questions with their videos,
audio and transcripts), written once into the cache and read as a Social-IQ folder; without ``--split``
(and without a command's own default) it reads ``val``, the sample's evaluation split. A file or folder
named ``sample`` in the working folder is read as itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from desiq.formats import MCQAReading, read_source
from desiq.formats.mcqa_fields import Mapping
from desiq.inputs import InputSetting
from desiq.records import MCQAItem
from mmsoc.core.io import InputError, UsageError
from mmsoc.core.paths import OutsideRoot, inside

DATA_HELP = (
    "Social-IQ folder (qa/qa_SPLIT.json picked by --split; media by vid_name), a single QA file "
    "(Social-IQ JSON Lines, or any MCQA file: JSON Lines, JSON, CSV, TSV, Parquet, read through --fields or "
    "--schema when its columns are not a common shape; then only inputs without media, or those of its "
    "context and media columns), or 'sample': the embedded sample with media (default split val)."
)
SAMPLE = "sample"
SAMPLE_SPLIT = "val"

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
    mapping: Mapping | None = None
    """The field mapping of a generic MCQA file (None: its format or shape is recognised)."""
    format: str = "auto"
    """The format the file is read in (``--format``; ``auto``: the one it looks like)."""

    def reading(self) -> MCQAReading:
        """The questions with what was read (format, mapping, decisions, skipped rows), for data cards."""
        return read_source(self.qa, self.mapping, self.media_root, self.format)

    def items(self) -> list[MCQAItem]:
        return self.reading().items

    def require_media(self, inputs: str | InputSetting, items: Sequence[MCQAItem] = ()) -> None:
        """A UsageError when ``inputs`` need media that a single QA file cannot give (``items``: the file's
        questions, whose context stands for the transcript)."""
        setting = InputSetting.parse(inputs) if isinstance(inputs, str) else inputs
        given = {"transcript"} if items and all(item.context for item in items) else set()
        given |= {"video", "audio"} if items and all(item.media for item in items) else set()
        if set(setting.media) - given and self.media_root is None:
            raise UsageError(
                f"inputs {setting.name} need media ({', '.join(setting.media)}), but --data {self.qa} "
                "is a single QA file: pass the Social-IQ folder instead"
            )

    def media_folder(self, items: Sequence[MCQAItem]) -> Path | None:
        """The folder media are read from: the Social-IQ folder or ``--media-root``, else the file's own
        folder when its questions name media files."""
        return self.media_root or (self.qa.parent if any(item.media for item in items) else None)


def qa_data(
    data: Path,
    split: str | None = None,
    default_split: str | None = None,
    mapping: Mapping | None = None,
    media_root: Path | None = None,
    format: str = "auto",
) -> QAData:
    """Resolve ``--data`` (and ``--split``) by the convention above; ``mapping`` and ``media_root`` (the
    folder of its media column) apply to a single generic MCQA file, ``format`` to the file read."""
    if is_sample(data):
        return qa_data(resolve_data(data), split, default_split or SAMPLE_SPLIT, format=format)
    if data.is_dir():
        split = split or default_split
        if split is None:
            raise UsageError(f"--data {data} is a Social-IQ folder: pass --split to pick qa/qa_SPLIT.json")
        if not SPLIT_NAME.fullmatch(split):
            raise UsageError(f"--split {split!r}: use letters, digits, '_' or '-' (e.g. train, val, test)")
        qa = data / "qa" / f"qa_{split}.json"
        if not qa.is_file():
            raise InputError(qa, f"file not found (--data is a Social-IQ folder, so --split {split} reads it)")
        return QAData(qa, data, split, format=format)
    if data.is_file():
        if split is not None:
            raise UsageError(f"--split picks a file of a Social-IQ folder, but --data {data} is a single QA file")
        return QAData(data, media_root, None, mapping, format)
    raise InputError(data, "not found (--data is a Social-IQ folder, a single QA file or 'sample')")


def is_sample(data: Path) -> bool:
    """Whether ``--data`` names the embedded sample (``sample``, where no such file or folder exists)."""
    return str(data) == SAMPLE and not data.exists()


def resolve_data(data: Path) -> Path:
    """``--data`` as a path on disk: the embedded sample's folder in the cache (written now if needed)
    for ``sample``, else ``data`` itself (for commands that look at the folder before ``qa_data``)."""
    if not is_sample(data):
        return data
    from desiq.sample import ensure_sample

    return ensure_sample()


def hold_out_videos(items: Sequence[MCQAItem], fraction: float, seed: int) -> tuple[list[MCQAItem], list[MCQAItem]]:
    """(rest, held out): the questions of a seeded ``fraction`` of the videos (groups) are held out (at
    least one; with a single group, all questions serve both)."""
    import numpy as np

    videos = sorted({item.video for item in items})
    n_held = max(1, round(fraction * len(videos))) if len(videos) > 1 else 0
    held = set(np.random.default_rng(seed).permutation(videos)[:n_held].tolist())
    rest = [item for item in items if item.video not in held]
    return rest, [item for item in items if item.video in held] or rest


def item_media_path(root: Path, modality: str, item: MCQAItem) -> Path:
    """Where an item's medium is: its own media file (a generic file's media column: the video, and the
    audio track of that video) under ``root``, else the Social-IQ layout by its video (``media_path``)."""
    if item.media and modality != "transcript":
        return inside(root, item.media)
    return media_path(root, modality, item.video)


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
