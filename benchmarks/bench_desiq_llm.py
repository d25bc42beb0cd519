"""``desiq eval`` with the shared prefix (``--prefix-cache auto``) against the full path (``off``), side by side.

One run of each over the same questions (every condition, A4 and A2, ``--inputs q+a+t+v``, ``--answer
loglik``), on a LLaVA-1.5-style model with random weights: a CLIP vision tower at ``--image-size`` pixels
(patch 14, so a frame is hundreds of tokens) and a Llama language model large enough that the model, not
the harness, dominates on a CPU. Prints wall and CPU time, the work counters of runtime.json (rows
scored, prefix passes, tokens the language model processed, frames through the vision tower), their
ratios, and checks that every score agrees to 1e-4 and every chosen option is the same.

    python benchmarks/bench_desiq_llm.py                                  # CPU: mid-size model, 2 videos
    python benchmarks/bench_desiq_llm.py --size llava-1.5-7b --device cuda --limit 24   # a GPU, real size

``--size llava-1.5-7b`` builds LLaVA-1.5-7B's architecture with random bfloat16 weights
(``benchmarks/real_size.py``; nothing is downloaded).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"


def build_mid(folder: Path, image_size: int, seed: int = 0) -> Path:
    """A LLaVA-1.5-style model: a 2-layer CLIP tower at ``image_size`` px, patch 14; a 4-layer Llama of width 256."""
    import torch
    from tiny_models import _save, llava15_config, llava15_processor
    from tiny_video_models import LLAVA_SPECIALS, build_tokenizer
    from transformers import LlamaConfig, LlavaForConditionalGeneration

    tok = build_tokenizer(LLAVA_SPECIALS, pad_token="<pad>", bos_token="<s>", eos_token="</s>")
    vision = dict(
        hidden_size=256,
        intermediate_size=1024,
        num_hidden_layers=2,
        num_attention_heads=4,
        image_size=image_size,
        patch_size=14,
    )
    text = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=256,
        intermediate_size=1024,
        num_hidden_layers=4,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=4096,
        pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
    )
    torch.manual_seed(seed)
    model = LlavaForConditionalGeneration(llava15_config(tok, vision, text)).eval()
    return _save(model, llava15_processor(tok, image_size, 14), folder)


def build_real(folder: Path, device: str) -> Path:
    from api_server import LLAVA15_CHAT_TEMPLATE
    from real_size import build_llava_15_7b

    folder.mkdir(parents=True, exist_ok=True)
    return build_llava_15_7b(folder, device, LLAVA15_CHAT_TEMPLATE)


def run(model: str, data: Path, out: Path, options) -> tuple[float, float, dict, list[dict]]:
    from desiq.llm.evaluate import evaluate

    wall, cpu = time.perf_counter(), time.process_time()
    evaluate(model, data, out, options)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    runtime = json.loads((out / "runtime.json").read_text())
    rows = [json.loads(line) for line in (out / "predictions.jsonl").open()]
    return wall, cpu, runtime, rows


def compare(full: list[dict], shared: list[dict]) -> tuple[float, int]:
    """(largest score difference, rows whose chosen option differs); the rows must be the same keys."""
    keys = [(r["id"], r["condition"], r["rotation"]) for r in full]
    assert keys == [(r["id"], r["condition"], r["rotation"]) for r in shared], "the two runs asked different rows"
    diff = max(abs(a - b) for x, y in zip(full, shared) for a, b in zip(x["scores"], y["scores"]))
    return diff, sum(1 for x, y in zip(full, shared) if x["chosen"] != y["chosen"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", choices=("mid", "llava-1.5-7b"), default="mid")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--image-size", type=int, default=224, help="Vision tower pixels (mid size).")
    parser.add_argument("--limit", type=int, default=7, help="Questions (the sample's first video has six).")
    parser.add_argument("--num-frames", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    import torch

    from desiq.llm.evaluate import EvalOptions
    from desiq.sample import write_sample
    from mmsoc.models.registry import MediaSettings, ModelOptions

    torch.set_num_threads(args.threads)
    sys.path.insert(0, str(TESTS))
    sys.path.insert(0, str(TESTS.parent / "benchmarks"))
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        model = str(
            build_mid(tmp_path / "model", args.image_size)
            if args.size == "mid"
            else build_real(tmp_path / "model", args.device)
        )
        data = write_sample(tmp_path / "sample")
        media = MediaSettings(num_frames=args.num_frames, cache_dir=str(tmp_path / "cache"))
        store = media.store()
        for video in sorted((data / "video").glob("*.mp4")):  # decoded once before timing: both runs read the cache
            store.clip(video)
        results = {}
        for setting in ("off", "auto"):
            options = EvalOptions(
                split="val",
                inputs="q+a+t+v",
                limit=args.limit,
                batch_size=args.batch_size,
                model=ModelOptions(media=media, device=args.device, prefix_cache=setting),
            )
            results[setting] = run(model, data, tmp_path / f"run-{setting}", options)
    load_end = os.getloadavg()
    (wall_off, cpu_off, rt_off, rows_off), (wall_on, cpu_on, rt_on, rows_on) = results["off"], results["auto"]
    diff, changed = compare(rows_off, rows_on)
    videos = len({r["vid_name"] for r in rows_off})
    print(f"{os.cpu_count()} CPUs, {args.threads} threads; load average (1, 5, 15 min) {load_start} at the start")
    print(
        f"model: {args.size} ({'image ' + str(args.image_size) + ' px, ' if args.size == 'mid' else ''}"
        f"{args.num_frames} frames), device {args.device}; {args.limit} questions of {videos} videos, "
        f"every condition, {len(rows_off)} rows"
    )
    print(f"{'':24}{'off':>14}{'auto':>14}{'off / auto':>12}")
    for name, off, on in (
        ("wall s", wall_off, wall_on),
        ("CPU s", cpu_off, cpu_on),
        *(
            (key, rt_off[key], rt_on[key])
            for key in ("rows_scored", "prefix_passes", "tokens_processed", "frames_encoded")
        ),
    ):
        ratio = f"{off / on:11.1f}x" if on else f"{'-':>12}"
        print(f"{name:24}{off:>14.1f}{on:>14.1f}{ratio}")
    print(f"path: off = {rt_off['path']} ({rt_off['why']}); auto = {rt_on['path']} ({rt_on['why']})")
    print(f"largest score difference {diff:.2e} (limit 1e-4); rows with another chosen option: {changed}")
    print(f"load average at the end {load_end}")
    if diff > 1e-4 or changed:
        raise SystemExit("the shared prefix changed the scores")


if __name__ == "__main__":
    main()
