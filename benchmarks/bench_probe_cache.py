"""A second ``desiq probe`` over the same files against the first: the embedding cache side by side.

    python benchmarks/bench_probe_cache.py [--data qa_train.jsonl] [--runs 3] [-- EXTRA PROBE OPTIONS]

The Social-IQ 2.0 questions are split by video (4/5 train, 1/5 eval, as bench_probe.py splits them)
into two files; ``desiq probe --train --eval`` then runs ``--runs`` times as separate processes on an
empty embedding cache of its own (``MMSOC_CACHE``): the first run encodes every text with MiniLM,
the later ones find them all cached. CPU time (user + system, ``getrusage`` of children) and wall time
of each run are printed with the machine's load, and the first run's over the fastest later run's
as the speed-up; the probe.json of every run must be identical (the cache changes no result).
Extra options after ``--`` go to ``desiq probe`` (e.g. ``--no-tsne``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "siq2" / "qa_train.jsonl"


def split_by_video(data: Path, folder: Path) -> tuple[Path, Path, int, int]:
    """train.jsonl and eval.jsonl: the lines of ``data`` whose video's crc32 is (not) divisible by 5."""
    train, held = [], []
    for line in data.read_text(encoding="utf-8").splitlines():
        if line.strip():
            (train if zlib.crc32(json.loads(line)["vid_name"].encode()) % 5 else held).append(line + "\n")
    (folder / "train.jsonl").write_text("".join(train), encoding="utf-8")
    (folder / "eval.jsonl").write_text("".join(held), encoding="utf-8")
    return folder / "train.jsonl", folder / "eval.jsonl", len(train), len(held)


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    done = subprocess.run(command, env=env, cwd=REPO, capture_output=True, text=True)
    wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(command)}\n{done.stderr[-4000:]}")
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="Social-IQ 2.0 QA file (JSON lines).")
    parser.add_argument("--runs", type=int, default=3, help="Probe runs on one cache (the first fills it).")
    parser.add_argument("extra", nargs="*", help="Options passed to desiq probe (after --).")
    args = parser.parse_args()
    if args.runs < 2:
        raise SystemExit("--runs must be at least 2")
    if not args.data.is_file():
        raise SystemExit(f"no Social-IQ 2.0 QA file at {args.data}; pass --data")
    with tempfile.TemporaryDirectory(prefix="bench_probe_cache_") as tmp:
        work = Path(tmp)
        train, held, n_train, n_held = split_by_video(args.data, work)
        env = {
            **os.environ,
            "PYTHONPATH": str(REPO),
            "MMSOC_CACHE": str(work / "cache"),
            "HF_HUB_OFFLINE": "1",
            "CUDA_VISIBLE_DEVICES": "",
            "TOKENIZERS_PARALLELISM": "false",
        }
        print(
            f"{n_train + n_held} questions of {args.data.name} ({n_train} train / {n_held} eval, split by video); "
            f"{os.cpu_count()} CPUs, load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}"
        )
        times, results = [], []
        for k in range(args.runs):
            out = work / f"run{k}"
            times.append(
                timed(
                    [
                        sys.executable,
                        "-m",
                        "desiq",
                        "probe",
                        "--train",
                        str(train),
                        "--eval",
                        str(held),
                        "--out",
                        str(out),
                        *args.extra,
                    ],
                    env,
                )
            )
            results.append((out / "probe.json").read_bytes())
            state = "empty cache" if k == 0 else "cached"
            print(f"run {k + 1} ({state}): {times[-1][0]:7.1f} CPU s {times[-1][1]:7.1f} wall s")
        best = min(range(1, args.runs), key=lambda k: times[k][0])
        print(
            f"first / second run: {times[0][0] / times[1][0]:.1f}x CPU, {times[0][1] / times[1][1]:.1f}x wall; "
            f"first / fastest later run: {times[0][0] / times[best][0]:.1f}x CPU, "
            f"{times[0][1] / times[best][1]:.1f}x wall (target >= 10)"
        )
        print(f"probe.json identical across runs: {all(r == results[0] for r in results)}")
        print(f"load average at the end {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
