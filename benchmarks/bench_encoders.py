"""Encoding throughput per modality on the embedded sample's media, and the speed-up of a cached rerun.

Both runs go through the same CachedEncoder code, side by side in one process: the first over an
empty cache (decode + encode), the second over the filled cache (hash + load). Last, frame sampling
with decord against the PyAV fallback on the same files.

    python benchmarks/bench_encoders.py [--videos 16] [--video-model ViT-B-32]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from desiq.data import media_path
from desiq.sample import sample_videos, write_sample
from mmsoc.media import AudioEncoder, CachedEncoder, FeatureCache, TranscriptEncoder, VideoEncoder
from mmsoc.media.decode import read_frames, read_frames_pyav


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--videos", type=int, default=16, help="number of sample videos to encode")
    parser.add_argument("--video-model", default="ViT-B-32", help="open_clip architecture (random weights)")
    parser.add_argument("--num-frames", type=int, default=8, help="frames per video")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = write_sample(Path(tmp) / "sample")
        vids = [v.vid for videos in sample_videos().values() for v in videos][: args.videos]
        encoders = {
            "video": lambda: VideoEncoder(args.video_model, None, num_frames=args.num_frames),
            "audio": lambda: AudioEncoder(),
            "transcript": lambda: TranscriptEncoder(),
        }
        print(f"{'modality':<11} {'files':>5} {'first s':>8} {'files/s':>8} {'cached s':>9} {'speed-up':>9}")
        for modality, make in encoders.items():
            cache = FeatureCache(Path(tmp) / "cache")
            paths = [media_path(root, modality, vid) for vid in vids]
            if modality == "transcript":
                make().embed([["warm-up"]])  # load MiniLM outside the timed runs, like the image models below
            times = []
            for _ in range(2):
                encoder = CachedEncoder(make(), cache)
                if modality == "video":
                    encoder.encoder.images._model  # noqa: B018 - load weights outside the timed run
                start = time.perf_counter()
                encoder.encode_files(paths)
                times.append(time.perf_counter() - start)
            assert encoder.encoder.encoded == 0, "the second run should be served from the cache"
            print(
                f"{modality:<11} {len(paths):>5} {times[0]:>8.3f} {len(paths) / times[0]:>8.1f} "
                f"{times[1]:>9.4f} {times[0] / times[1]:>8.1f}x"
            )
        videos = [media_path(root, "video", vid) for vid in vids]
        seconds = {}
        for name, read in (("decord", read_frames), ("PyAV", read_frames_pyav)):
            start = time.perf_counter()
            for path in videos:
                read(path, num_frames=args.num_frames)
            seconds[name] = time.perf_counter() - start
        print(
            f"frame sampling of {len(videos)} videos: decord {seconds['decord']:.3f} s, PyAV fallback "
            f"{seconds['PyAV']:.3f} s ({seconds['PyAV'] / seconds['decord']:.2f}x decord's time)"
        )


if __name__ == "__main__":
    main()
