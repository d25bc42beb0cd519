"""``mmsoc eval`` side by side with raw batched ``generate``, lmms-eval's ``llava_hf`` and the previous release,
on the same items and model; the OpenAI-compatible backend against ``transformers serve`` on this machine.

    python benchmarks/bench_harness.py [--items 128] [--batch-size 32] [--rounds 2] [--threads 1]
        [--lmms-python PATH/bin/python] [--baseline-path OLD_CHECKOUT] [--no-serve]
        [--size tiny|llava-1.5-7b] [--device cpu|cuda]

Every tool runs as its own process, in turn within each round (so load on a shared machine hits them
alike), on a tiny LLaVA-1.5 (built here from a config, with the llava-hf processor chat template) and
N Hateful-Memes-format items (drawn here), greedy, ``--max-new-tokens`` tokens, ``--threads`` torch
threads, CPU only. Each tool first runs once untimed (warm caches). Per tool and round: its command
line for one item (start-up) and for N items, each a fresh process; then one more process that calls
the same command line three times in itself (one item as warm-up, one item, N items): "per item" is
(N items - one item) / (N - 1) there, so imports, model loading and the variance of start-up cancel.
After the rounds, ``--startup-pairs`` one-item runs of mmsoc, the previous release and raw generate
are taken in turn; the median of the pairs' ratios is the start-up figure least moved by a shared
machine's drift over minutes.
CPU time (user + system, this process and its children, ``getrusage``) and wall time are both
printed: on a loaded machine wall time also counts waiting for a CPU, CPU time does not (but still
grows when other processes thrash the caches). The figures are medians over rounds. Generations of
every tool are compared item by item (after ``strip()``, which lmms-eval applies to its outputs).

- raw: a script with transformers alone: the processor's chat template, left padding, batches of
  ``--batch-size``, ``model.generate``, decode. Harness overhead = mmsoc per item / raw per item.
- lmms-eval 0.7.3 ``--model llava_hf`` (batch 1, its maximum) with a local task written here
  (``dataset_path: json``, each item's prompt exactly as mmsoc builds it). lmms-eval requires
  ``av<16``, which conflicts with our pins, so it lives in its own virtual environment::

      python3 -m venv lmms-venv
      lmms-venv/bin/pip install torch==2.14.1 torchvision==0.29.1 torchaudio==2.11.1 transformers==5.24.0 \\
          tokenizers==0.23.3 huggingface-hub==2.4.0 safetensors==0.8.0 accelerate==1.15.0 numpy==2.4.6 \\
          pillow==13.0.0 pyyaml==6.0.4 datasets==5.2.0 loguru==0.7.3 sacrebleu==2.6.0 evaluate==0.4.6 \\
          pytz==2026.6 tenacity==9.2.1 decord==0.6.0 "filelock==3.32.7" pytablewriter==1.2.1
      lmms-venv/bin/pip install --no-deps lmms-eval==0.7.3

  (the torch stack as pinned in pyproject.toml; the rest is what its ``llava_hf`` path imports;
  ``filelock<4`` because lmms-eval imports ``filelock._api``; ``--no-deps`` keeps its ~50 other
  requirements, av 15 among them, out). Pass ``--lmms-python lmms-venv/bin/python``.
- previous release: ``--baseline-path`` a checkout of it (``git worktree add DIR <commit>``), run with
  ``PYTHONPATH=DIR`` by this interpreter; no ``--threads`` there, so every process here gets
  ``OMP_NUM_THREADS``. Every process starts in the work folder, and before timing anything the script
  checks that each environment imports the mmsoc it names (it stops otherwise).
- real size (``--size llava-1.5-7b --device cuda``): LLaVA-1.5-7B's architecture with random bfloat16
  weights (``real_size.py``; nothing is downloaded): the regime batching is for, where a decoding step
  is bound by reading the weights, which a batch shares. Every tool then runs on the GPU and the ratios
  lead with wall time (CPU time leaves out the GPU's work). For a short GPU session, one round::

      python benchmarks/bench_harness.py --size llava-1.5-7b --device cuda --items 64 --rounds 1 \\
          --startup-pairs 0 --no-serve --lmms-python lmms-venv/bin/python

- API: ``mmsoc eval --model openai:DIR`` against ``transformers serve DIR`` (needs
  ``transformers[serving]``; one torch thread) at concurrency 1 and 8; server CPU is read from /proc.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SIZES = ("tiny", "llava-1.5-7b")
TASK = "hate"
LMMS_TASK = "mmsoc_bench_hate"
CAPTION_WORDS = (
    "when your friend says the weather is nice look at this photo of my lunch people like you cat logic "
    "monday morning mood dog sees the mailman world ends me pretending to work funny joke grandma "
    "discovers emojis this group ruins everything they are all the same"
)


@dataclass(frozen=True)
class Timed:
    cpu: float
    wall: float


def timed(command: list[str], env: dict[str, str], cwd: Path) -> Timed:
    """CPU (user + system of the child and its children) and wall seconds of one command, run in ``cwd``.

    ``cwd`` is the benchmark's work folder, never a checkout: ``python -m mmsoc`` puts its working folder
    first on ``sys.path``, so a run started in this repository would import this repository's mmsoc
    whatever ``PYTHONPATH`` says."""
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)
    wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(command)}\n{done.stderr[-4000:]}")
    return Timed(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall)


def write_items(root: Path, n: int) -> Path:
    """``root/hateful_memes/test.jsonl`` with n items and their 64x48 PNG images (deterministic)."""
    import numpy as np
    from PIL import Image, ImageDraw

    folder = root / "hateful_memes"
    (folder / "img").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    with open(folder / "test.jsonl", "w") as rows:
        for i in range(n):
            text = " ".join(rng.choice(CAPTION_WORDS.split(), size=int(rng.integers(3, 30))))
            ramp = np.linspace(0, 255, 64, dtype=np.float32)[None, :, None] * rng.uniform(0.2, 1.0, 3)
            image = Image.fromarray(np.broadcast_to(ramp, (48, 64, 3)).astype(np.uint8), "RGB")
            ImageDraw.Draw(image).text((2, 30), text[:12], fill=(255, 255, 255))
            image.save(folder / f"img/{i:05d}.png")
            rows.write(json.dumps({"id": f"{i:05d}", "img": f"img/{i:05d}.png", "label": i % 2, "text": text}) + "\n")
    return root


def prompts_of(data: Path, n: int) -> list[dict]:
    """Each item's image and text part exactly as ``mmsoc eval`` asks them (its own request builder)."""
    from mmsoc.models.base import GenerationSettings
    from mmsoc.runners.config import RunConfig
    from mmsoc.runners.eval import plan, resolve_prompts

    config = RunConfig.create(
        GenerationSettings(greedy=True), None, model="m", tasks=(TASK,), data=str(data), prompt_version=None
    )
    work, problems = plan(config, resolve_prompts(config.tasks), n)
    assert not problems and len(work) == n, problems
    return [{"id": w.example.id, "img": w.request.images[0], "prompt": w.request.prompt} for w in work]


def write_lmms_task(folder: Path, items: list[dict], max_new_tokens: int) -> Path:
    """A local lmms-eval task over ``items`` (absolute image paths, mmsoc's prompt text per item)."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "items.jsonl", "w") as out:
        out.writelines(json.dumps(item) + "\n" for item in items)
    (folder / "utils.py").write_text(
        "from PIL import Image\n\n\ndef visual(doc):\n    return [Image.open(doc['img']).convert('RGB')]\n\n\n"
        "def text(doc, lmms_eval_specific_kwargs=None):\n    return doc['prompt']\n\n\n"
        "def target(doc):\n    return ''\n\n\ndef results(doc, results):\n    return {'n': 1}\n\n\n"
        "def total(items):\n    return len(items)\n"
    )
    (folder / f"{LMMS_TASK}.yaml").write_text(
        f"dataset_path: json\ndataset_kwargs:\n  data_files:\n    test: {folder / 'items.jsonl'}\n"
        f"task: {LMMS_TASK}\ntest_split: test\noutput_type: generate_until\n"
        "doc_to_visual: !function utils.visual\ndoc_to_text: !function utils.text\n"
        "doc_to_target: !function utils.target\nprocess_results: !function utils.results\n"
        f"generation_kwargs:\n  max_new_tokens: {max_new_tokens}\n  temperature: 0\n  top_p: 1.0\n"
        "  num_beams: 1\n  do_sample: false\n"
        "metric_list:\n  - metric: n\n    aggregation: !function utils.total\n    higher_is_better: true\n"
        "metadata:\n  version: 0.0\n"
    )
    return folder


def raw_generate(argv: list[str]) -> None:
    """transformers alone: chat template, left padding, batched greedy generate, decode; writes id -> text."""
    import torch
    from PIL import Image
    from transformers import AutoModelForImageTextToText, AutoProcessor

    parser = argparse.ArgumentParser()
    for name in ("--model", "--item-file", "--out", "--device"):
        parser.add_argument(name)
    for name in ("--limit", "--batch-size", "--max-new-tokens", "--threads"):
        parser.add_argument(name, type=int)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    items = [json.loads(line) for line in Path(args.item_file).read_text().splitlines()][: args.limit]
    processor = AutoProcessor.from_pretrained(args.model)
    model = AutoModelForImageTextToText.from_pretrained(args.model, dtype="auto").to(args.device).eval()
    out = {}
    for start in range(0, len(items), args.batch_size):
        chunk = items[start : start + args.batch_size]
        prompts = [
            processor.apply_chat_template(
                [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": item["prompt"]}]}],
                add_generation_prompt=True,
            )
            for item in chunk
        ]
        images = [Image.open(item["img"]).convert("RGB") for item in chunk]
        inputs = processor(text=prompts, images=images, return_tensors="pt", padding=True, padding_side="left")
        inputs = inputs.to(model.device, dtype=model.dtype)
        with torch.inference_mode():
            ids = model.generate(
                **inputs,
                max_new_tokens=args.max_new_tokens,
                do_sample=False,
                pad_token_id=processor.tokenizer.pad_token_id,
            )
        texts = processor.batch_decode(ids[:, inputs["input_ids"].shape[1] :], skip_special_tokens=True)
        out.update({item["id"]: text.strip() for item, text in zip(chunk, texts)})
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out))


def _cli_runner(kind: str):
    """The entry point of a tool's command line, callable again and again in one process."""
    if kind == "raw":
        return raw_generate
    if kind == "lmms":
        from lmms_eval.__main__ import cli_evaluate

        def call(argv: list[str]) -> None:
            sys.argv = ["lmms-eval", *argv]
            cli_evaluate()

        return call
    from mmsoc.cli import main as mmsoc_main

    def call_mmsoc(argv: list[str]) -> None:
        sys.argv = ["mmsoc", *argv]
        try:
            mmsoc_main()
        except SystemExit as end:
            if end.code:
                raise

    return call_mmsoc


def worker(kind: str, runs: list[list[str]], out: str) -> None:
    """Each run of a tool's command line in this one process: CPU (this process and its children) and
    wall seconds per run, written to ``out``."""

    def cpu() -> float:
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

    call, timings = _cli_runner(kind), []
    for argv in runs:
        before, start = cpu(), time.perf_counter()
        call(argv)
        timings.append([cpu() - before, time.perf_counter() - start])
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(timings))


def mmsoc_outputs(run: Path) -> dict[str, str]:
    return {row["id"]: row["raw"] for row in map(json.loads, (run / "predictions.jsonl").read_text().splitlines())}


def lmms_outputs(out: Path, items: list[dict]) -> dict[str, str]:
    (samples,) = out.rglob(f"*_samples_{LMMS_TASK}.jsonl")
    found = {}
    for row in map(json.loads, samples.read_text().splitlines()):
        resp = row["filtered_resps"]
        found[items[row["doc_id"]]["id"]] = (resp if isinstance(resp, str) else resp[0]).strip()
    return found


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system, all threads) a running process has used, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=128)
    parser.add_argument("--batch-size", type=int, default=32, help="mmsoc's and raw generate's batch size.")
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=2, help="Timed rounds (medians are printed).")
    parser.add_argument("--threads", type=int, default=1, help="torch threads of every process.")
    parser.add_argument(
        "--size",
        choices=SIZES,
        default="tiny",
        help="tiny: a two-layer LLaVA-1.5 (CPU); llava-1.5-7b: its real architecture, random weights (a GPU).",
    )
    parser.add_argument("--device", default="cpu", help="cpu, or cuda for every tool (a GPU run leads with wall time).")
    parser.add_argument("--lmms-python", help="Python of a virtual environment with lmms-eval 0.7.3 (see above).")
    parser.add_argument("--baseline-path", help="Checkout of the previous release, run with PYTHONPATH.")
    parser.add_argument(
        "--serve",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="Benchmark the API backend against transformers serve.",
    )
    parser.add_argument(
        "--startup-pairs",
        type=int,
        default=8,
        help="One-item runs of mmsoc, the previous release and raw generate taken in turn, after the rounds.",
    )
    parser.add_argument("--keep", help="Keep the working files in this folder.")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--runs", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, json.loads(args.runs), args.out)
        return
    work = Path(args.keep or tempfile.mkdtemp(prefix="bench_harness_"))
    try:
        run_all(args, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


@dataclass(frozen=True)
class Tool:
    """How to run one tool: its kind of worker, interpreter, environment and command-line arguments."""

    kind: str
    python: str
    env: dict[str, str]
    argv: Callable[[int, Path], list[str]]
    """(item limit, output folder) -> the arguments of its command line."""

    def command(self, limit: int, out: Path) -> list[str]:
        """The tool's own command line (a raw generate run goes through this script's worker)."""
        argv = self.argv(limit, out)
        if self.kind == "raw":
            return self.in_process([argv], out.with_suffix(".timings.json"))
        return [self.python, "-m", "lmms_eval" if self.kind == "lmms" else "mmsoc", *argv]

    def in_process(self, runs: list[list[str]], timings: Path) -> list[str]:
        return [self.python, __file__, "--worker", self.kind, "--runs", json.dumps(runs), "--out", str(timings)]


def run_all(args: argparse.Namespace, work: Path) -> None:
    sys.path.insert(0, str(REPO / "tests"))
    from api_server import LLAVA15_CHAT_TEMPLATE, ServeProcess, servable_copy
    from bench_report import Report
    from real_size import build_llava_15_7b
    from tiny_models import build_tiny_llava

    n, threads = args.items, str(args.threads)
    load_start = os.getloadavg()
    if args.size == "tiny":
        model = servable_copy(build_tiny_llava(work / "built"), work / "tiny-llava")
    else:
        model = build_llava_15_7b(work / args.size, args.device, LLAVA15_CHAT_TEMPLATE)
    data = write_items(work / "data", n)
    items = prompts_of(data, n)
    item_file = str(write_lmms_task(work / "lmms_task", items, args.max_new_tokens) / "items.jsonl")
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        **({"CUDA_VISIBLE_DEVICES": ""} if args.device == "cpu" else {}),
        "OMP_NUM_THREADS": threads,
        "MKL_NUM_THREADS": threads,
        "TOKENIZERS_PARALLELISM": "false",
        "HF_HOME": str(work / "hf_home"),
    }
    common = [
        "eval",
        "--task",
        TASK,
        "--model",
        str(model),
        "--data",
        str(data),
        "--greedy",
        "--fast-metrics",
        "--no-progress",
        "--max-new-tokens",
        str(args.max_new_tokens),
        "--batch-size",
        str(args.batch_size),
    ]
    local = [*common, "--dtype", "auto", "--device", args.device]  # a model loaded in the process
    tools = {
        "mmsoc": Tool(
            "mmsoc",
            sys.executable,
            env,
            lambda limit, out: [*local, "--threads", threads, "--limit", str(limit), "--out", str(out)],
        ),
        "raw generate": Tool(
            "raw",
            sys.executable,
            env,
            lambda limit, out: [
                "--model",
                str(model),
                "--item-file",
                item_file,
                "--limit",
                str(limit),
                "--batch-size",
                str(args.batch_size),
                "--max-new-tokens",
                str(args.max_new_tokens),
                "--threads",
                threads,
                "--device",
                args.device,
                "--out",
                str(out),
            ],
        ),
    }
    if args.baseline_path:
        old_env = {**env, "PYTHONPATH": str(Path(args.baseline_path).resolve())}
        tools["previous release"] = Tool(
            "mmsoc", sys.executable, old_env, lambda limit, out: [*local, "--limit", str(limit), "--out", str(out)]
        )
    notes = []
    if args.lmms_python and Path(args.lmms_python).exists():
        tools["lmms-eval llava_hf"] = Tool(
            "lmms",
            args.lmms_python,
            env,
            lambda limit, out: [
                "--model",
                "llava_hf",
                "--model_args",
                f"pretrained={model},device_map={args.device}",
                "--tasks",
                LMMS_TASK,
                "--include_path",
                str(work / "lmms_task"),
                "--device",
                args.device,
                "--batch_size",
                "1",
                "--log_samples",
                "--output_path",
                str(out),
                "--limit",
                str(limit),
            ],
        )
    else:
        why = f"not found: {args.lmms_python}" if args.lmms_python else "no --lmms-python given"
        notes.append(f"lmms-eval: not run ({why}; see this script's docstring to build its environment)")
    for name, tool in tools.items():
        if tool.kind == "mmsoc":
            check_source(name, tool, work)
    described = "tiny LLaVA-1.5" if args.size == "tiny" else f"{args.size} architecture, random weights"
    report = Report(n, args.batch_size, args.max_new_tokens, args.threads, args.rounds, described, args.device)
    for name, tool in tools.items():  # untimed warm-up: .pyc files, the datasets cache
        timed(tool.command(1, work / "warm" / name.replace(" ", "_")), tool.env, work)
    outputs: dict[str, dict[str, str]] = {}
    for r in range(args.rounds):
        for name, tool in tools.items():
            folder = work / f"r{r}" / name.replace(" ", "_")
            for limit in (1, n):
                report.add(name, limit, timed(tool.command(limit, folder / f"cli{limit}"), tool.env, work))
            runs = [tool.argv(limit, folder / f"inproc{k}") for k, limit in enumerate((1, 1, n))]
            timed(tool.in_process(runs, folder / "inproc.json"), tool.env, work)
            report.in_process(name, json.loads((folder / "inproc.json").read_text())[1:])
            if r == 0:
                outputs[name] = _outputs(tool.kind, folder / f"cli{n}", items)
    if "previous release" in tools:
        for k in range(args.startup_pairs):
            for name in ("mmsoc", "previous release", "raw generate"):
                out = work / "pairs" / f"{k}" / name.replace(" ", "_")
                report.startup_pair(name, timed(tools[name].command(1, out), tools[name].env, work))
    if args.serve and args.device != "cpu":
        notes.append("API backend: not run (transformers serve runs here on the CPU only; pass --no-serve)")
    elif args.serve:
        notes += serve_api(ServeProcess, model, work, common, env, n, report, outputs)
    report.print(outputs, load_start, os.getloadavg(), notes)


def check_source(name: str, tool: Tool, work: Path) -> None:
    """Stop unless the tool's processes import mmsoc from the checkout its ``PYTHONPATH`` names."""
    root = Path(tool.env["PYTHONPATH"]).resolve()
    command = [tool.python, "-c", "import mmsoc; print(mmsoc.__file__)"]
    probe = subprocess.run(command, env=tool.env, cwd=work, capture_output=True, text=True)
    found = Path(probe.stdout.strip() or ".").resolve()
    if probe.returncode or not found.is_relative_to(root):
        raise SystemExit(f"{name}: imports mmsoc from {found}, not from {root}\n{probe.stderr[-2000:]}")


def _outputs(kind: str, out: Path, items: list[dict]) -> dict[str, str]:
    if kind == "raw":
        return json.loads(out.read_text())
    return lmms_outputs(out, items) if kind == "lmms" else mmsoc_outputs(out)


def serve_api(
    serve,
    model: Path,
    work: Path,
    common: list[str],
    env: dict[str, str],
    n: int,
    report,
    outputs: dict[str, dict[str, str]],
) -> list[str]:
    """mmsoc eval --model openai:DIR against transformers serve DIR at concurrency 1 and 8."""
    try:
        server = serve(model, log=work / "serve.log").start()
    except (RuntimeError, OSError) as err:
        return [f"API backend: not run (transformers serve did not start: {str(err)[:300]})"]
    try:
        for concurrency in (1, 8):
            out = work / f"api_{concurrency}"
            cpu = proc_cpu(server.process.pid)
            run = timed(
                [
                    sys.executable,
                    "-m",
                    "mmsoc",
                    *common[:4],
                    f"openai:{model}",
                    *common[5:],
                    "--api-base",
                    server.url,
                    "--concurrency",
                    str(concurrency),
                    "--limit",
                    str(n),
                    "--out",
                    str(out),
                ],
                env,
                work,
            )
            outputs[f"API, concurrency {concurrency}"] = mmsoc_outputs(out)
            report.api(concurrency, run, proc_cpu(server.process.pid) - cpu)
    finally:
        server.kill()
    return []


if __name__ == "__main__":
    main()
