"""Decoding media: sampled video frames (decord with a PyAV fallback, or folders of frame images) and mono
waveforms."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
from PIL import Image

from mmsoc.media.base import MediaError

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


def content_hash(path: str | Path) -> str:
    """sha256 of a file's bytes, or of a folder's sorted (name, file hash) list."""
    path = Path(path)
    digest = hashlib.sha256()
    if path.is_dir():
        for child in sorted(p for p in path.iterdir() if p.is_file()):
            digest.update(child.name.encode() + b"\0" + content_hash(child).encode())
        return digest.hexdigest()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def require_file(path: Path) -> None:
    """Raise MediaError for a missing or empty file."""
    if not path.exists():
        raise MediaError(path, "missing")
    if path.is_file() and path.stat().st_size == 0:
        raise MediaError(path, "empty file")


def frame_indices(n_total: int, source_fps: float, num_frames: int | None, fps: float | None) -> np.ndarray:
    """Uniformly spread ``num_frames`` indices, or one index every 1/``fps`` seconds."""
    if n_total <= 0:
        return np.zeros(0, dtype=np.int64)
    if fps:
        step = max(source_fps / fps, 1.0) if source_fps > 0 else 1.0
        return np.unique(np.floor(np.arange(0, n_total, step)).astype(np.int64))
    return np.unique(np.linspace(0, n_total - 1, num=num_frames or 8).round().astype(np.int64))


def read_frames(
    path: str | Path, num_frames: int | None = 8, fps: float | None = None, frames_fps: float = 3.0
) -> np.ndarray:
    """Sampled RGB frames (n, H, W, 3) uint8 of a video file or a folder of frame images.

    A folder's images are taken in sorted file-name order at ``frames_fps`` (3 fps in Social-IQ 2.0).
    """
    path = Path(path)
    require_file(path)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not files:
            raise MediaError(path, "no frame images in folder")
        picked = [files[k] for k in frame_indices(len(files), frames_fps, num_frames, fps)]
        try:
            return np.stack([np.asarray(Image.open(p).convert("RGB")) for p in picked])
        except (OSError, ValueError) as err:
            raise MediaError(path, f"cannot read frame images ({err})") from None
    import decord

    try:
        reader = decord.VideoReader(str(path), ctx=decord.cpu(0), num_threads=1)
        indices = frame_indices(len(reader), reader.get_avg_fps(), num_frames, fps)
        if len(indices):
            return reader.get_batch(indices.tolist()).asnumpy()
        reason = "no video frames"
    except (RuntimeError, decord.DECORDError) as err:
        reason = f"cannot decode video ({str(err).splitlines()[0][:200]})"
    try:  # decord rejects some frame sizes (e.g. widths that are not a multiple of 32): PyAV decodes them
        return read_frames_pyav(path, num_frames, fps)
    except MediaError as err:
        raise MediaError(path, reason if err.reason == reason else f"{reason}; PyAV: {err.reason}") from None


def clip_seconds(path: str | Path, frames_fps: float = 3.0) -> float:
    """How long a clip lasts: the container's duration (nothing decoded), or a frame folder's images over
    ``frames_fps``."""
    path = Path(path)
    if path.is_dir():
        return sum(1 for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES) / frames_fps
    import av

    try:
        with av.open(str(path)) as container:
            if container.duration:
                return container.duration / av.time_base
            stream = container.streams.video[0]
            return float(stream.duration * stream.time_base) if stream.duration else 0.0
    except (av.FFmpegError, IndexError) as err:
        raise MediaError(path, f"cannot read video duration ({str(err).splitlines()[0][:200]})") from None


def read_frames_pyav(path: str | Path, num_frames: int | None = 8, fps: float | None = None) -> np.ndarray:
    """Sampled RGB frames (n, H, W, 3) uint8 of a video file, decoded in order with PyAV.

    The same frame indices as the decord path; frames after the last wanted one are never decoded.
    A file that ends before its last wanted frame (truncated) raises MediaError.
    """
    import av

    path = Path(path)
    try:
        with av.open(str(path)) as container:
            stream = container.streams.video[0]
            total, rate = stream.frames, float(stream.average_rate or 0)
            if total <= 0:  # the container does not say: count by decoding
                total = sum(1 for _ in container.decode(stream))
        wanted = frame_indices(total, rate, num_frames, fps)
        if len(wanted) == 0:
            raise MediaError(path, "no video frames")
        todo, picked = set(wanted.tolist()), []
        with av.open(str(path)) as container:
            for k, frame in enumerate(container.decode(container.streams.video[0])):
                if k in todo:
                    picked.append(frame.to_ndarray(format="rgb24"))
                if len(picked) == len(wanted):
                    return np.stack(picked)
    except (av.FFmpegError, IndexError, ValueError) as err:
        raise MediaError(path, f"cannot decode video ({str(err).splitlines()[0][:200]})") from None
    raise MediaError(path, f"cannot decode video (only {len(picked)} of {len(wanted)} sampled frames)")


def read_audio(path: str | Path, sample_rate: int = 16000, max_seconds: float | None = None) -> np.ndarray:
    """Mono float32 waveform at ``sample_rate``: wav/flac via soundfile, mp3/mp4/others via decord."""
    path = Path(path)
    require_file(path)
    if path.suffix.lower() in (".wav", ".flac", ".ogg"):
        import soundfile as sf

        try:
            data, rate = sf.read(
                str(path),
                dtype="float32",
                always_2d=True,
                frames=-1 if max_seconds is None else int(max_seconds * sf.info(str(path)).samplerate),
            )
        except (RuntimeError, sf.LibsndfileError) as err:
            raise MediaError(path, f"cannot read audio ({err})") from None
        wave = data.mean(axis=1)
        if rate != sample_rate:
            import torch
            import torchaudio.functional as F

            wave = F.resample(torch.from_numpy(wave), rate, sample_rate).numpy()
    else:
        import decord

        try:
            wave = decord.AudioReader(str(path), sample_rate=sample_rate, mono=True)[:].asnumpy()[0]
        except (RuntimeError, decord.DECORDError, IndexError) as err:
            raise MediaError(path, f"cannot decode audio ({str(err).splitlines()[0][:200]})") from None
    if max_seconds is not None:
        wave = wave[: int(max_seconds * sample_rate)]
    if wave.size == 0:
        raise MediaError(path, "no audio samples")
    return np.ascontiguousarray(wave, dtype=np.float32)
