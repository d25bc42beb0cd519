"""How a model is loaded and batched: ``--dtype auto``, attention kernels, ``--device-map auto``,
``--batch-size auto``, and what ``mmsoc eval`` and ``desiq eval`` record of them."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
from pathlib import Path

import pytest
import torch
from typer.testing import CliRunner

from desiq.cli import app as desiq_app
from desiq.sample import write_sample
from mmsoc.cli import app as mmsoc_app
from mmsoc.core.batching import BatchSizer
from mmsoc.core.distributed import SingleProcess
from mmsoc.core.io import UsageError
from mmsoc.models.backends.hf import HFModel
from mmsoc.models.base import GenerationSettings
from mmsoc.models.loading import check_device_map, load_hf_model, resolve_dtype
from mmsoc.runners.config import RunConfig
from mmsoc.runners.eval import run_eval

TEMPLATE = Path(__file__).parent / "chat_templates" / "llava_1_5.jinja"
HAS_FLASH_ATTN = importlib.util.find_spec("flash_attn") is not None


@pytest.fixture(scope="module")
def bf16_llava(tiny_llava, tmp_path_factory) -> Path:
    """The tiny LLaVA saved in bfloat16 (its config.json records ``dtype: bfloat16``), processor beside it."""
    from transformers import LlavaForConditionalGeneration

    folder = tmp_path_factory.mktemp("bf16_llava")
    shutil.copytree(tiny_llava, folder, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.safetensors"))
    model = LlavaForConditionalGeneration.from_pretrained(tiny_llava, dtype=torch.bfloat16)
    model.save_pretrained(folder)
    assert json.loads((folder / "config.json").read_text())["dtype"] == "bfloat16"
    return folder


def test_dtype_auto_loads_a_bfloat16_checkpoint_as_float32_on_the_cpu(bf16_llava):
    loaded = load_hf_model(str(bf16_llava), device="cpu")
    assert loaded.model.dtype == torch.float32
    assert (loaded.info.dtype, loaded.info.device, loaded.info.device_map) == ("float32", "cpu", None)
    assert loaded.info.attn_implementation == "sdpa"  # transformers' choice for LLaVA, which has the kernel
    model, processor, family = loaded  # the tuple callers unpack
    assert model is loaded.model and processor is loaded.processor and family == "llava"
    explicit = load_hf_model(str(bf16_llava), "bfloat16", "cpu", attn_implementation="eager")
    assert explicit.model.dtype == torch.bfloat16
    assert (explicit.info.dtype, explicit.info.attn_implementation) == ("bfloat16", "eager")


def test_dtype_auto_on_cuda_is_the_checkpoints_with_float16_where_bfloat16_is_missing(monkeypatch):
    from transformers import LlamaConfig

    cuda = torch.device("cuda", 0)
    bf16, fp16, unrecorded = LlamaConfig(dtype="bfloat16"), LlamaConfig(dtype="float16"), LlamaConfig()
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *args, **kwargs: True)
    assert resolve_dtype("auto", bf16, cuda) == torch.bfloat16
    assert resolve_dtype("auto", fp16, cuda) == torch.float16
    assert resolve_dtype("auto", unrecorded, cuda) == "auto"  # transformers reads the weights' own
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *args, **kwargs: False)
    assert resolve_dtype("auto", bf16, cuda) == torch.float16  # a GPU without bfloat16 (e.g. a T4)
    assert resolve_dtype("auto", bf16, torch.device("cpu")) == torch.float32
    assert resolve_dtype("float16", bf16, torch.device("cpu")) == torch.float16
    with pytest.raises(UsageError, match="--dtype 'half'"):
        resolve_dtype("half", bf16, cuda)


@pytest.mark.skipif(HAS_FLASH_ATTN, reason="flash_attn is installed here")
def test_flash_attention_2_without_flash_attn_is_one_clear_error(tiny_llava, tmp_path):
    with pytest.raises(UsageError, match="needs the flash_attn package"):
        load_hf_model(str(tiny_llava), device="cpu", attn_implementation="flash_attention_2")
    out = tmp_path / "run"
    args = ["--model", str(tiny_llava), "--attn-implementation", "flash_attention_2", "--out", str(out)]
    result = CliRunner().invoke(mmsoc_app, ["eval", "--task", "hate", "--limit", "1", *args])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: --attn-implementation flash_attention_2 needs the flash_attn package (pip install flash-attn), "
        "which is not installed; use sdpa or eager"
    ]
    assert not out.exists()


def test_device_map_auto_is_refused_under_a_two_process_launch():
    check_device_map("auto", SingleProcess())  # one process: one model over the GPUs
    check_device_map(None, SingleProcess(0, 2, True))
    with pytest.raises(UsageError, match="under accelerate launch each of the 2 processes loads its own copy"):
        check_device_map("auto", SingleProcess(0, 2, True))
    with pytest.raises(UsageError, match="--device-map 'balanced': choose auto or none"):
        check_device_map("balanced", SingleProcess())


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--dtype", "half", "--dtype 'half': choose auto, float32, float16 or bfloat16"),
        ("--device-map", "sequential", "--device-map 'sequential': choose auto or none"),
        ("--attn-implementation", "xformers", "--attn-implementation 'xformers': choose one of sdpa"),
        ("--generation-config", "model", "--generation-config 'model': choose neutral or checkpoint"),
        ("--fit", "truncate", "--fit 'truncate': choose drop or error"),
        ("--chat-template", "no/such.jinja", "--chat-template no/such.jinja: no such file"),
        ("--batch-size", "0", "--batch-size '0': give a positive number or auto"),
    ],
)
def test_a_wrong_model_flag_is_one_line_naming_it(flag, value, message, tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(
        mmsoc_app, ["eval", "--task", "hate", "--model", "random", "--out", str(out), flag, value]
    )
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert message in result.output and not out.exists()


class SmallMemory(HFModel):
    """The tiny LLaVA as if on an accelerator that holds at most ``FITS`` requests at once."""

    FITS = 5

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.calls: list[int] = []

    def generate(self, requests, settings, prepared=None):
        self.calls.append(len(requests))
        if len(requests) > self.FITS:
            raise torch.OutOfMemoryError("CUDA out of memory (simulated)")
        return super().generate(requests, settings, prepared)


def test_batch_size_auto_halves_on_out_of_memory_and_answers_as_a_fixed_batch_does(tiny_llava, tmp_path):
    config = RunConfig.create(
        GenerationSettings(greedy=True, max_new_tokens=4),
        None,
        model=str(tiny_llava),
        tasks=("hate", "ocr"),
        data="sample",
        prompt_version={"hate": "mmsoc-v1", "ocr": "mmsoc-v1"},
    )
    small: list[SmallMemory] = []

    def make_small() -> SmallMemory:
        small.append(SmallMemory(str(tiny_llava), device="cpu"))
        return small[-1]

    def run(name: str, make_model, batch_size: int | str) -> None:
        run_eval(
            config,
            tmp_path / name,
            make_model,
            batch_size=batch_size,
            limit=7,
            progress=False,
            fast_metrics=True,
            modalities=frozenset({"text", "image"}),
            threads=1,
        )

    run("auto", make_small, "auto")
    run("fixed", lambda: HFModel(str(tiny_llava), device="cpu"), 3)
    # 14 requests: all 14 at once fail, then 8 (64 halved until below 14); 4 fits and is kept for the rest
    assert small[0].calls == [14, 8, 4, 4, 4, 2]
    assert (tmp_path / "auto/predictions.jsonl").read_bytes() == (tmp_path / "fixed/predictions.jsonl").read_bytes()
    runtime = json.loads((tmp_path / "auto/runtime.json").read_text())
    assert runtime["batch_size"] == "auto" and runtime["batch_size_used"] == [4]
    assert json.loads((tmp_path / "fixed/runtime.json").read_text())["batch_size_used"] == [3]


def test_a_fixed_size_or_a_single_request_never_hides_out_of_memory():
    def fails_above_one(chunk):
        if len(chunk) > 1:
            raise torch.OutOfMemoryError("simulated")
        return list(chunk)

    with pytest.raises(torch.OutOfMemoryError):
        BatchSizer(4).run([1, 2, 3], fails_above_one)
    sizer = BatchSizer("auto")
    assert sizer.run([1, 2, 3], fails_above_one) == [1, 2, 3] and sizer.size == 1
    with pytest.raises(torch.OutOfMemoryError):
        sizer.run([1], lambda chunk: (_ for _ in ()).throw(torch.OutOfMemoryError("one alone")))


def test_mmsoc_eval_records_the_model_flags_in_config_json(tiny_llava, tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(
        mmsoc_app,
        [
            "eval",
            "--task",
            "hate",
            "--model",
            str(tiny_llava),
            "--greedy",
            "--limit",
            "2",
            "--max-new-tokens",
            "3",
            "--no-progress",
            "--fast-metrics",
            "--chat-template",
            str(TEMPLATE),
            "--generation-config",
            "checkpoint",
            "--max-context",
            "4096",
            "--fit",
            "error",
            "--attn-implementation",
            "eager",
            "--batch-size",
            "auto",
            "--log-prompts",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    config = json.loads((out / "config.json").read_text())
    assert {k: config[k] for k in ("dtype", "device_map", "attn_implementation", "generation_config")} == {
        "dtype": "auto",
        "device_map": None,
        "attn_implementation": "eager",
        "generation_config": "checkpoint",
    }
    assert (config["max_context"], config["fit"]) == (4096, "error")
    assert config["chat_template"] == str(TEMPLATE.resolve())
    assert config["chat_template_sha256"] == hashlib.sha256(TEMPLATE.read_bytes()).hexdigest()
    runtime = json.loads((out / "runtime.json").read_text())
    assert runtime["batch_size"] == "auto" and runtime["batch_size_used"] == [64] and runtime["log_prompts"]
    (loaded,) = runtime["model"]
    assert (loaded["dtype"], loaded["device"], loaded["attn_implementation"]) == ("float32", "cpu", "eager")


def test_mmsoc_eval_records_the_kernel_the_model_ran_by_default(tiny_llava, tmp_path):
    out = tmp_path / "run"
    args = ["--task", "hate", "--model", str(tiny_llava), "--greedy", "--limit", "1", "--max-new-tokens", "2"]
    result = CliRunner().invoke(mmsoc_app, ["eval", *args, "--no-progress", "--fast-metrics", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "config.json").read_text())["attn_implementation"] is None  # as asked
    (loaded,) = json.loads((out / "runtime.json").read_text())["model"]
    assert (loaded["attn_implementation"], loaded["dtype"], loaded["device_map"]) == ("sdpa", "float32", None)


def test_desiq_eval_records_the_model_flags_in_config_json(tiny_llava, tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(
        desiq_app,
        [
            "eval",
            "--model",
            str(tiny_llava),
            "--data",
            str(write_sample(tmp_path / "sample")),
            "--inputs",
            "q+a",
            "--condition",
            "original",
            "--limit",
            "2",
            "--no-progress",
            "--chat-template",
            str(TEMPLATE),
            "--attn-implementation",
            "sdpa",
            "--prefix-cache",
            "off",
            "--max-context",
            "2048",
            "--fit",
            "error",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    config = json.loads((out / "config.json").read_text())
    assert {k: config[k] for k in ("dtype", "device_map", "attn_implementation", "prefix_cache")} == {
        "dtype": "auto",
        "device_map": None,
        "attn_implementation": "sdpa",
        "prefix_cache": "off",
    }
    assert (config["max_context"], config["fit"]) == (2048, "error")
    assert config["prompt_format"]["path"] == str(TEMPLATE.resolve())
    assert config["prompt_format"]["template_sha256"] == hashlib.sha256(TEMPLATE.read_bytes()).hexdigest()
