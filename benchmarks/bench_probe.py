"""The full answer-only probe on Social-IQ 2.0 training questions, timed stage by stage, and the
speed-up of embedding each distinct option once per run over re-embedding every perturbed set.

    python benchmarks/bench_probe.py [--data qa_train.jsonl] [--probe embed-linear] [--naive-items 300]
"""

from __future__ import annotations

import argparse
import os
import time
import zlib
from pathlib import Path

import numpy as np

from desiq.formats import read_mcqa
from desiq.perturbation_schemes import perturb
from desiq.perturbations import PERTURBATIONS
from desiq.probe_table import debiased_rows, run_probe
from desiq.probes import make_probe
from desiq.probes.embed_linear import EmbedLinearProbe
from desiq.records import to_a2
from mmsoc.media.sentences import embed_texts, load_sentence_encoder

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "siq2" / "qa_train.jsonl"


def cells(items, seed=0):
    """The scored sets of an answer-only probe run: the items and each option perturbation, in A4 and in A2."""
    out = []
    for base in (items, to_a2(items)):
        out.append(base)
        out += [perturb(base, p, seed=seed).items for p in PERTURBATIONS.values() if not p.retrains]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="QA file (any format of desiq.formats)")
    parser.add_argument("--probe", default="embed-linear")
    parser.add_argument("--naive-items", type=int, default=300, help="eval questions for the side-by-side ratio")
    args = parser.parse_args()

    items = read_mcqa(args.data)
    train = [i for i in items if zlib.crc32(i.video.encode()) % 5]
    held = [i for i in items if not zlib.crc32(i.video.encode()) % 5]
    print(
        f"{len(items)} questions ({len(train)} train / {len(held)} eval, split by video); "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}"
    )
    load_sentence_encoder(None)  # model load is timed separately, once

    start = time.perf_counter()
    backend = make_probe(args.probe)
    report = run_probe(backend, train, held, "a", seed=0)
    table = time.perf_counter() - start
    report.results += debiased_rows(backend, train, held, "a", seed=0)
    total = time.perf_counter() - start
    print(f"full probe ({args.probe}, inputs a): table {table:.1f} s, with the DeSIQ_d retraining {total:.1f} s")
    for row in report.results:
        print(
            f"  {row.data:9s} {row.perturbation:8s} {row.config}: {100 * row.accuracy:5.1f}%  "
            f"CI [{100 * row.ci95[0]:.1f}, {100 * row.ci95[1]:.1f}]"
        )

    subset = held[: args.naive_items]
    sets = cells(subset)
    t0 = time.perf_counter()
    for s in sets:  # what a harness without a per-run text cache does: embed every scored set anew
        embed_texts([o for item in s for o in item.options])
    naive = time.perf_counter() - t0
    t0 = time.perf_counter()
    probe = EmbedLinearProbe()
    for s in sets:
        probe.embed([o for item in s for o in item.options])
    cached = time.perf_counter() - t0
    print(
        f"embedding the {len(sets)} scored sets of {len(subset)} questions: re-embedding {naive:.2f} s, "
        f"each distinct text once {cached:.2f} s -> {naive / cached:.1f}x"
    )
    assert np.isfinite(total)


if __name__ == "__main__":
    main()
