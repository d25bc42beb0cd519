"""``desiq eval`` against the least work that gives its scores: a minimal transformers script and the trie count.

Three runs over the same questions (every condition, ``--inputs q+a+t+v``, ``--answer loglik``) on the
mid-size LLaVA-1.5-style model of ``bench_desiq_llm.py``, each in its own process (so CPU time and peak
memory are its own):

- ``off``: ``desiq eval --prefix-cache off``;
- ``auto``: ``desiq eval`` (the shared prefix and its token trie); its requests are recorded;
- ``minimal``: those requests scored by a short script calling the transformers model directly, with the
  least work that gives the same scores: identical requests once, each media prefix once, then one
  forward over the trie of every row's own tokens (a tree attention mask). Its inputs are made as desiq
  makes them (prompt text, the processor's media inputs, answer tokens in context).

The timed part is ``desiq eval`` as a whole (requests built, fitted, scored, written; metrics) for
``off`` and ``auto``, the scoring loop for ``minimal``; process CPU adds imports and model loading.
Beside them, ``trie``: the node count of a token trie over the distinct (media, prompt + answer) sequences,
what a perfect radix prefix cache computes. Prints CPU seconds, peak resident memory, tokens processed,
attended tokens and forward passes side by side, the ratios the targets are stated in (tokens of ``auto``
against the trie, CPU of ``auto`` against ``minimal``), and the largest score difference between the runs.

    python benchmarks/bench_prefix_limit.py                     # CPU: mid-size model, 8 questions, 8 frames
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent
TESTS = BENCHMARKS.parent / "tests"
TOLERANCE = {"rtol": 1e-5, "atol": 1e-4}


def eval_run(args: argparse.Namespace, setting: str, folder: Path) -> dict[str, Any]:
    """``desiq eval`` in this process; with ``auto`` every score_options call is recorded."""
    from desiq.llm.evaluate import EvalOptions, evaluate
    from mmsoc.models.backends.hf import HFModel
    from mmsoc.models.registry import MediaSettings, ModelOptions

    calls: list[dict[str, Any]] = []
    original = HFModel.score_options

    def recording(self, requests, options):
        scores = original(self, requests, options)
        calls.append(
            {
                "requests": [_request_json(r) for r in requests],
                "options": [list(o) for o in options],
                "scores": [list(s.loglik) for s in scores],
            }
        )
        return scores

    HFModel.score_options = recording  # type: ignore[method-assign]
    media = MediaSettings(num_frames=args.num_frames, cache_dir=str(folder / "cache"))
    options = EvalOptions(
        split="val",
        inputs="q+a+t+v",
        limit=args.limit,
        batch_size=args.batch_size,
        model=ModelOptions(media=media, device="cpu", prefix_cache=setting),
    )
    cpu = time.process_time()
    evaluate(str(folder / "model"), folder / "sample", folder / f"run-{setting}", options)
    cpu = time.process_time() - cpu
    runtime = json.loads((folder / f"run-{setting}" / "runtime.json").read_text())
    if setting == "auto":
        (folder / "calls.json").write_text(json.dumps(calls))
    return {"cpu": cpu, **{key: runtime[key] for key in COUNTERS}, "scores": [c["scores"] for c in calls]}


COUNTERS = ("tokens_processed", "attended_tokens", "forward_passes")


def _request_json(request) -> dict[str, Any]:
    return {
        "task": request.task,
        "id": request.id,
        "parts": [{"kind": type(p).__name__, **vars(p)} for p in request.parts],
    }


def _request(data: dict[str, Any]):
    from mmsoc.models import base

    parts = tuple(getattr(base, p.pop("kind"))(**p) for p in data["parts"])
    return base.Request(data["task"], data["id"], parts)


def minimal_run(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """The recorded requests scored with the least work, every forward transformers' own."""
    import torch

    from mmsoc.models.backends.hf import HFModel
    from mmsoc.models.prefix import media_key
    from mmsoc.models.registry import MediaSettings

    media = MediaSettings(num_frames=args.num_frames, cache_dir=str(folder / "cache"))
    maker = HFModel(str(folder / "model"), device="cpu", dtype="float32", media=media, prefix_cache="off")
    model, tokenizer = maker.model, maker.tokenizer
    calls = json.loads((folder / "calls.json").read_text())
    counts = {"tokens_processed": 0, "attended_tokens": 0, "forward_passes": 0, "trie": 0}
    out = []
    cpu = time.process_time()
    for call in calls:
        requests = [_request(r) for r in call["requests"]]
        prompts = maker.prompts(requests)
        distinct: dict[tuple, list[int]] = {}
        for i, (request, prompt, options) in enumerate(zip(requests, prompts, call["options"])):
            distinct.setdefault((media_key(request), prompt, tuple(options)), []).append(i)
        groups: dict[tuple, list[tuple]] = {}
        for key in distinct:
            groups.setdefault(key[0], []).append(key)
        scores: list[list[float]] = [[] for _ in requests]
        for keys in groups.values():
            first = requests[distinct[keys[0]][0]]
            ids = [tokenizer(prompt)["input_ids"] for _, prompt, _ in keys]
            n = 0
            while n < min(map(len, ids)) - 1 and all(row[n] == ids[0][n] for row in ids):
                n += 1
            batch = maker.encode([first], padding_side="right")
            width = batch["input_ids"].shape[1] - (len(ids[0]) - n)
            inputs = {k: v[:, :width] if k in ("input_ids", "attention_mask") else v for k, v in batch.items()}
            with torch.inference_mode():
                cache = model(**inputs, use_cache=True, logits_to_keep=1).cache
            nodes: dict[tuple, int] = {}  # (parent, token) -> node
            parents: list[int] = []
            depths: list[int] = []
            rows: list[tuple[list[int], list[int]]] = []
            for (_, prompt, options), row in zip(keys, ids):
                for option in options:
                    target = maker.answer_tokens(prompt, option)
                    node, path = -1, list[int]()
                    for token in [*row[n:], *target[:-1]]:
                        if (node, token) not in nodes:
                            nodes[node, token] = len(parents)
                            parents.append(node)
                            depths.append(len(path))
                        node = nodes[node, token]
                        path.append(node)
                    rows.append((path[len(row) - n - 1 :], target))
            count = len(parents)
            mask = torch.full((count, width + count), torch.finfo(model.dtype).min)
            mask[:, :width] = 0
            for i in range(count):
                j = i
                while j >= 0:
                    mask[i, width + j] = 0
                    j = parents[j]
            tokens = [token for (_, token), _ in sorted(nodes.items(), key=lambda item: item[1])]
            with torch.inference_mode():
                logits = model(
                    input_ids=torch.tensor([tokens]),
                    attention_mask=mask[None, None],
                    position_ids=torch.tensor([[width + d for d in depths]]),
                    cache=cache,
                ).logits
            logprobs = torch.log_softmax(logits[0].float(), dim=-1)
            values = [sum(float(logprobs[q, t]) for q, t in zip(path, target)) for path, target in rows]
            k = 0
            for key in keys:
                for i in distinct[key]:
                    scores[i] = values[k : k + len(key[2])]
                k += len(key[2])
            counts["tokens_processed"] += width + count
            counts["attended_tokens"] += width * (width + 1) // 2 + sum(width + d + 1 for d in depths)
            counts["forward_passes"] += 2
            counts["trie"] += width + count
        out.append(scores)
    return {"cpu": time.process_time() - cpu, **counts, "scores": out}


def child(args: argparse.Namespace) -> None:
    import torch

    torch.set_num_threads(args.threads)
    sys.path.insert(0, str(TESTS))
    folder = Path(args.folder)
    result = minimal_run(args, folder) if args.one == "minimal" else eval_run(args, args.one, folder)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    result["process_cpu"] = usage.ru_utime + usage.ru_stime  # imports and model loading included
    result["peak_mib"] = usage.ru_maxrss / 1024
    print("RESULT " + json.dumps(result))


def prepare(args: argparse.Namespace, folder: Path) -> None:
    """The mid-size model and the sample, the videos decoded into the cache once (every run reads it)."""
    sys.path.insert(0, str(TESTS))
    sys.path.insert(0, str(BENCHMARKS))
    from bench_desiq_llm import build_mid

    from desiq.sample import write_sample
    from mmsoc.models.registry import MediaSettings

    build_mid(folder / "model", args.image_size)
    data = write_sample(folder / "sample")
    store = MediaSettings(num_frames=args.num_frames, cache_dir=str(folder / "cache")).store()
    for video in sorted((data / "video").glob("*.mp4")):
        store.clip(video)


def largest_difference(a: list, b: list) -> float:
    """The largest |a - b| over every option score of two runs (calls, requests, options in the same order)."""
    flat_a = [v for call in a for request in call for v in request]
    flat_b = [v for call in b for request in call for v in request]
    assert len(flat_a) == len(flat_b), "the two runs scored different rows"
    return max(abs(x - y) for x, y in zip(flat_a, flat_b))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--image-size", type=int, default=224)
    parser.add_argument("--limit", type=int, default=8)
    parser.add_argument("--num-frames", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--one", choices=("off", "auto", "minimal"), help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        return child(args)
    with tempfile.TemporaryDirectory() as tmp:
        prepare(args, Path(tmp))
        results = {}
        for one in ("auto", "minimal", "off"):  # auto first: it records the requests minimal scores
            print(f"running {one} ...", file=sys.stderr, flush=True)
            command = [sys.executable, __file__, *sys.argv[1:], "--one", one, "--folder", tmp]
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode:
                raise SystemExit(f"the {one} run failed:\n{done.stderr[-3000:]}")
            line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
            results[one] = json.loads(line[len("RESULT ") :])
    show(args, results)


def show(args: argparse.Namespace, results: dict[str, dict[str, Any]]) -> None:
    off, auto, minimal = results["off"], results["auto"], results["minimal"]
    print(
        f"mid-size LLaVA-1.5-style model ({args.image_size} px, {args.num_frames} frames), CPU, {args.threads} "
        f"threads; {args.limit} sample questions, every condition, batch size {args.batch_size}"
    )
    print(f"{'':20}{'off':>14}{'auto':>14}{'minimal':>14}{'trie':>14}")
    rows = (("cpu", "CPU s, timed part"), ("process_cpu", "CPU s, process"), ("peak_mib", "peak MiB"))
    for key, name in (*rows, *((c, c) for c in COUNTERS)):
        cells = [off.get(key), auto.get(key), minimal.get(key), minimal["trie"] if key == "tokens_processed" else None]
        print(f"{name:20}" + "".join(f"{'-':>14}" if c is None else f"{c:>14,.1f}" for c in cells))
    print(f"tokens: auto / trie {auto['tokens_processed'] / minimal['trie']:.3f}x (target <= 1.05x)")
    cpu, peak = auto["cpu"] / minimal["cpu"], auto["peak_mib"] / minimal["peak_mib"]
    process = auto["process_cpu"] / minimal["process_cpu"]
    print(f"CPU: auto / minimal {cpu:.3f}x timed, {process:.3f}x process (target <= 1.05x)")
    whole = off["process_cpu"] / auto["process_cpu"]
    print(f"CPU: off / auto {off['cpu'] / auto['cpu']:.1f}x timed, {whole:.1f}x process")
    print(f"peak memory: auto / minimal {peak:.3f}x; off / auto {off['peak_mib'] / auto['peak_mib']:.3f}x")
    print(
        f"largest score difference: auto vs off {largest_difference(auto['scores'], off['scores']):.2e}, "
        f"auto vs minimal {largest_difference(auto['scores'], minimal['scores']):.2e}"
    )


if __name__ == "__main__":
    main()
