"""Batched vs one-at-a-time generation, and harness overhead over the model's own ``generate``.

Prints ratios measured side by side in one run on the same model and requests:
  batched speed-up   = time(one request per call) / time(--batch-size requests per call)
  harness overhead   = time(HFModel.generate) / time(model.generate on pre-encoded inputs)
  sampling overhead  = time(per-row seeded nucleus sampling) / time(greedy)

    python benchmarks/bench_batching.py                    # a tiny LLaVA built from a config
    python benchmarks/bench_batching.py --model DIR_OR_ID  # any image-text-to-text model
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import torch
from PIL import Image as PILImage

from mmsoc.models.backends.hf import HFModel
from mmsoc.models.base import GenerationSettings, Image, Request, Text
from mmsoc.tasks.registry import TASKS


def _timed(variants: dict, repeats: int) -> dict[str, float]:
    """Best wall time of each variant; variants alternate within each repeat, so load on a shared
    machine hits them alike (after one warm-up run each)."""
    times: dict[str, list[float]] = {name: [] for name in variants}
    for fn in variants.values():
        fn()
    for _ in range(repeats):
        for name, fn in variants.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: min(values) for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="Model folder or hub id (default: a tiny LLaVA built here).")
    parser.add_argument("--requests", type=int, default=32, help="Requests per measurement.")
    parser.add_argument("--batch-size", type=int, default=8, help="Batch size of the batched path.")
    parser.add_argument("--max-new-tokens", type=int, default=16, help="Tokens generated per request.")
    parser.add_argument("--repeats", type=int, default=3, help="Timed repeats (the best is reported).")
    parser.add_argument("--device", default="auto", help="Device for the model.")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        model = args.model
        if model is None:
            sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
            from tiny_models import build_tiny_llava

            model = str(build_tiny_llava(Path(tmp) / "llava"))
        image = Path(tmp) / "meme.png"
        PILImage.new("RGB", (64, 48), (200, 80, 40)).save(image)
        backend = HFModel(model, device=args.device)
        parts = (Image(str(image)), Text(TASKS["hate"].prompt))
        requests = [Request("hate", str(i), parts, seed=0) for i in range(args.requests)]
        greedy = GenerationSettings(greedy=True, max_new_tokens=args.max_new_tokens)
        sampled = GenerationSettings(max_new_tokens=args.max_new_tokens)
        chunks = [requests[i : i + args.batch_size] for i in range(0, len(requests), args.batch_size)]

        encoded = [backend.encode(c) for c in chunks]
        pad = backend.processor.tokenizer.pad_token_id

        def model_only() -> None:
            with torch.inference_mode():
                for batch in encoded:
                    backend.model.generate(
                        **batch, max_new_tokens=args.max_new_tokens, do_sample=False, pad_token_id=pad
                    )

        t = _timed(
            {
                "one": lambda: [backend.generate([r], greedy) for r in requests],
                "batched": lambda: [backend.generate(c, greedy) for c in chunks],
                "raw": model_only,
                "sampling": lambda: [backend.generate(c, sampled) for c in chunks],
            },
            args.repeats,
        )
        one, batched, raw, sampling = t["one"], t["batched"], t["raw"], t["sampling"]

    print(
        f"model: {model if args.model else 'tiny LLaVA (config-built)'}; {args.requests} requests, "
        f"{args.max_new_tokens} new tokens, best of {args.repeats}"
    )
    print(f"one-at-a-time        {one:8.3f} s")
    print(f"batched (size {args.batch_size:<3})   {batched:8.3f} s")
    print(f"model.generate only  {raw:8.3f} s")
    print(f"batched speed-up     {one / batched:8.2f} x")
    print(f"harness overhead     {batched / raw:8.2f} x  (HFModel.generate / model.generate)")
    print(f"sampling overhead    {sampling / batched:8.2f} x  (per-row seeded sampling / greedy)")


if __name__ == "__main__":
    main()
