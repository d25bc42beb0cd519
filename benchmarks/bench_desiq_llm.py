"""``desiq eval``: video decoded once for every condition, and batched option scoring against one question at a time.

Prints, measured in one run:
  decodes            videos decoded by a run over every condition, against the requests that show a video;
                     then by a second model over the same videos (same cache): nothing is decoded again
  loglik speed-up    time(score_options one option per call, or one question's options per call) /
                     time(--batch-size questions per call), the same questions side by side (best of
                     --repeats, variants alternating); on a tiny model the processor's per-request work,
                     not the forward pass, is most of the time

    python benchmarks/bench_desiq_llm.py                           # tiny LLaVA-1.5 and Qwen2-VL, the sample
    python benchmarks/bench_desiq_llm.py --model DIR_OR_ID --second-model DIR_OR_ID --data SIQ_FOLDER
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path


def _timed(variants: dict, repeats: int) -> dict[str, float]:
    """Best wall time of each variant, alternating within each repeat after one warm-up each."""
    times: dict[str, list[float]] = {name: [] for name in variants}
    for fn in variants.values():
        fn()
    for _ in range(repeats):
        for name, fn in variants.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: min(values) for name, values in times.items()}


def count_decodes() -> list[str]:
    """Record every video decode of the media store (the real decoder still runs)."""
    import mmsoc.media.clips as clips

    decoded: list[str] = []
    real = clips.read_frames

    def counting(path, *args, **kwargs):
        decoded.append(str(path))
        return real(path, *args, **kwargs)

    clips.read_frames = counting
    return decoded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="Model folder or hub id (default: a tiny LLaVA-1.5 built here).")
    parser.add_argument("--second-model", help="A second model over the same videos (default: a tiny Qwen2-VL).")
    parser.add_argument("--data", type=Path, help="Social-IQ 2.0 folder (default: the embedded sample).")
    parser.add_argument("--split", default="val")
    parser.add_argument("--limit", type=int, default=16, help="Questions of the split.")
    parser.add_argument("--num-frames", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=16, help="Questions per call on the batched path.")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    import torch

    from desiq.inputs import InputSetting
    from desiq.llm.conditions import ask
    from desiq.llm.evaluate import EvalOptions, evaluate
    from desiq.llm.prompts import get_prompt
    from desiq.llm.requests import RequestBuilder
    from desiq.sample import write_sample
    from mmsoc.models.backends.hf import HFModel
    from mmsoc.models.registry import MediaSettings

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        from tiny_video_models import build_llava15, build_qwen2_vl

        model = args.model or str(build_llava15(tmp_path / "llava15"))
        second = args.second_model or str(build_qwen2_vl(tmp_path / "qwen2_vl"))
        data = args.data or write_sample(tmp_path / "sample")
        media = MediaSettings(num_frames=args.num_frames, cache_dir=str(tmp_path / "cache"))
        decoded = count_decodes()
        options = EvalOptions(
            split=args.split, inputs="q+a+v", limit=args.limit, batch_size=args.batch_size, media=media
        )
        start = time.perf_counter()
        metrics = evaluate(model, data, tmp_path / "run1", options)
        first_time, first = time.perf_counter() - start, len(decoded)
        shown = sum(1 for line in (tmp_path / "run1" / "predictions.jsonl").open() if '"NCAQ"' not in line)
        start = time.perf_counter()
        evaluate(second, data, tmp_path / "run2", options)
        second_time, again = time.perf_counter() - start, len(decoded) - first

        backend = HFModel(model, media=media)
        builder = RequestBuilder(get_prompt(), InputSetting.parse("q+a+v"), data, backend.modalities)
        from desiq.data import qa_data

        items = qa_data(data, args.split).items()
        built = [builder.build(a) for a in ask(items, ("original",), limit=args.limit) if a.config == "A4"]
        requests, answers = [b.request for b in built], [b.answers for b in built]
        chunks = [range(i, min(i + args.batch_size, len(built))) for i in range(0, len(built), args.batch_size)]
        t = _timed(
            {
                "option": lambda: [
                    backend.score_options([requests[i]], [[answer]]) for i in range(len(built)) for answer in answers[i]
                ],
                "one": lambda: [backend.score_options([requests[i]], [answers[i]]) for i in range(len(built))],
                "batched": lambda: [
                    backend.score_options([requests[i] for i in c], [answers[i] for i in c]) for c in chunks
                ],
            },
            args.repeats,
        )

    print(
        f"data: {args.data or 'the embedded sample'}, {args.limit} questions of {args.split}, "
        f"{args.num_frames} frames, every condition ({metrics['rows']} answers)"
    )
    print(f"requests showing a video   {shown:6d}")
    print(f"videos decoded (model 1)   {first:6d}   run {first_time:.1f} s")
    print(f"videos decoded (model 2)   {again:6d}   run {second_time:.1f} s (same cache)")
    print(f"loglik one option a call   {t['option']:8.3f} s  ({len(built)} questions x 4 options)")
    print(f"loglik one question a call {t['one']:8.3f} s")
    print(f"loglik batched (size {args.batch_size:<3})  {t['batched']:8.3f} s")
    print(
        f"batched speed-up           {t['option'] / t['batched']:8.2f} x over one option a call, "
        f"{t['one'] / t['batched']:.2f} x over one question a call"
    )


if __name__ == "__main__":
    main()
