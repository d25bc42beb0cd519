"""Options shared by the ``mmsoc`` commands that load data and run a model (typer copies each use); the
model-loading ones (``ModelFlags``) serve ``desiq eval`` too."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from mmsoc.commands.listing import prompt_help
from mmsoc.core.io import UsageError
from mmsoc.core.options import option
from mmsoc.models.backends.api_limits import MAX_RESPONSE_BYTES
from mmsoc.models.registry import ModelOptions, model_help
from mmsoc.tasks.registry import suite_help, task_help

Data = Annotated[
    str,
    option(
        "--data",
        help="Data folder in the MM-Soc layout, `sample` (the embedded sample), `hub` (the datasets on the Hugging "
        "Face hub) or hf://OWNER/NAME (one hub dataset).",
    ),
]
EvalBatchSize = Annotated[
    str,
    option(
        "--batch-size",
        help="Requests per model call, or auto: the largest that fits in memory (from 64, halved on "
        "out-of-memory); never changes results.",
    ),
]
MaxNewTokens = Annotated[int, option("--max-new-tokens", min=1)]
TopP = Annotated[float, option("--top-p", min=0.0, max=1.0)]
Temperature = Annotated[float, option("--temperature", min=1e-6)]
WeightsDtype = Annotated[
    str,
    option(
        "--dtype",
        help="Model weights dtype: auto (the checkpoint's on a GPU, float16 for bfloat16 where the GPU lacks "
        "it; float32 on the CPU), float32, bfloat16 or float16.",
    ),
]
PromptVersion = Annotated[str | None, option("--prompt", help=prompt_help())]
Model = Annotated[str, option("--model", help=model_help())]
"""Any backend (``mmsoc list models``): the ``--model`` of every command that asks a model."""
Suite = Annotated[str, option("--suite", help=suite_help())]
Task = Annotated[str, option("--task", help=task_help())]
PromptsFile = Annotated[Path | None, option("--prompts", help="JSON/YAML file of task id -> prompt overrides.")]
TextLength = Annotated[
    int,
    option(
        "--text-length",
        min=0,
        help="Words of a news text kept (misinformation; MM-Soc's truncate_input with "
        "--text_input_length 128, the paper's default); 0 keeps the whole text.",
    ),
]

# How a transformers model is loaded and asked (the hf backend; recorded in config.json), for both apps.
DeviceMap = Annotated[
    str,
    option(
        "--device-map",
        help="auto: spread one model over this machine's GPUs (accelerate's big-model loading; one process, "
        "not under a multi-process accelerate launch); none: all of it on --device.",
    ),
]
AttnImplementation = Annotated[
    str | None,
    option(
        "--attn-implementation",
        help="Attention kernel: sdpa (the default where the model has it, else eager), "
        "flash_attention_2 (needs the flash_attn package) or eager.",
    ),
]
ChatTemplate = Annotated[
    Path | None,
    option(
        "--chat-template",
        help="Jinja chat-template file used instead of the checkpoint's template or the family's format "
        "(its path and sha256 go into config.json).",
    ),
]
GenerationConfig = Annotated[
    str,
    option(
        "--generation-config",
        help="neutral: decode with exactly this run's settings; checkpoint: start from the checkpoint's "
        "generation_config.json.",
    ),
]
MaxContext = Annotated[
    int | None,
    option("--max-context", min=1, help="Tokens the model may be given (default: its language model's context)."),
]
Fit = Annotated[
    str,
    option(
        "--fit",
        help="A request over the context: drop (frames first, then words of the text) or error (refused, "
        "recorded in problems.jsonl).",
    ),
]
LogPrompts = Annotated[
    bool, option("--log-prompts", help="Write the exact prompt given to the model into each prediction row.")
]
# a model on a server (--model openai:NAME); runtime.json records what a run used
Concurrency = Annotated[
    int,
    option(
        "--concurrency",
        min=1,
        help="Server calls in flight at once, a failed batch's retries too (at most --batch-size are, so raise "
        "both together).",
    ),
]
RequestTimeout = Annotated[
    float,
    option(
        "--request-timeout",
        min=0.01,
        help="Seconds a server call may take, its whole answer read, before it is retried.",
    ),
]
Retries = Annotated[
    int,
    option(
        "--retries",
        min=0,
        help="Retries of an item in all when its calls time out, cannot connect or get 408/409/429/5xx "
        "(exponential backoff): an item is sent at most 1 + RETRIES times, its batch's call and the re-asks of a "
        "failed batch together.",
    ),
]
Deadline = Annotated[
    float | None,
    option(
        "--deadline",
        min=0.01,
        help="Seconds of wall time for all the run's server calls; once passed, the items left are recorded as "
        "problems (deadline), the answers made are kept and the run ends; rerun to ask them again.",
    ),
]
MaxResponseBytes = Annotated[
    int,
    option(
        "--max-response-bytes",
        min=1,
        help=f"Longest answer read from the server, in bytes ({MAX_RESPONSE_BYTES // 2**20} MiB by default: prompt "
        "log-probabilities of a long video run to megabytes); a longer one is cut and its item recorded as a problem.",
    ),
]

MaxFailures = Annotated[str | None, option("--max-failures")]


def server_options(
    api_base: str | None, concurrency: int, timeout: float, retries: int, deadline: float | None, max_bytes: int
) -> dict[str, Any]:
    """The backend options of a model on a server, from the flags above."""
    return {
        "api_base": api_base,
        "concurrency": concurrency,
        "timeout": timeout,
        "retries": retries,
        "deadline": deadline,
        "max_response_bytes": max_bytes,
    }


@dataclass(frozen=True)
class ModelFlags:
    """The loading and prompting flags of an eval command, checked; a run's config.json records them all."""

    dtype: str
    device_map: str | None
    attn_implementation: str | None
    chat_template: str | None
    """The template file, resolved."""
    chat_template_sha256: str | None
    generation_config: str
    max_context: int | None
    fit: str

    def model_options(self, **fields: Any) -> ModelOptions:
        """The backend's options these flags set, with the command's other ``fields`` (device, media ...)."""
        return ModelOptions(
            dtype=self.dtype,
            device_map=self.device_map,
            attn_implementation=self.attn_implementation,
            chat_template=self.chat_template,
            generation_config=self.generation_config,
            max_context=self.max_context,
            **fields,
        )


def model_flags(
    dtype: str,
    device_map: str,
    attn_implementation: str | None,
    chat_template: Path | None,
    generation_config: str,
    max_context: int | None,
    fit: str,
) -> ModelFlags:
    """The flags as given on the command line, each checked (one line naming the flag when one is wrong)."""
    from mmsoc.models.budget import FIT_POLICIES
    from mmsoc.models.decoding import GENERATION_CONFIGS
    from mmsoc.models.loading import DTYPES, check_attn_implementation, check_device_map

    spread = device_map_of(device_map)
    check_device_map(spread)
    check_attn_implementation(attn_implementation)
    return ModelFlags(
        choice("--dtype", dtype, ("auto", *DTYPES)),
        spread,
        attn_implementation,
        *template_file(chat_template),
        choice("--generation-config", generation_config, GENERATION_CONFIGS),
        max_context,
        choice("--fit", fit, FIT_POLICIES),
    )


def choice(flag: str, value: str, allowed: Sequence[str]) -> str:
    """``value`` if it is one of ``allowed``; otherwise a one-line error naming the flag."""
    if value not in allowed:
        raise UsageError(f"{flag} {value!r}: choose {', '.join(allowed[:-1])} or {allowed[-1]}")
    return value


def device_map_of(value: str) -> str | None:
    """``--device-map``: ``auto``, or None for ``none``."""
    return None if choice("--device-map", value, ("auto", "none")) == "none" else value


def template_file(path: Path | None) -> tuple[str | None, str | None]:
    """(resolved path, sha256 of its bytes) of a ``--chat-template`` file, or (None, None) without one."""
    if path is None:
        return None, None
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"--chat-template {path}: no such file") from None
    except OSError as err:
        raise UsageError(f"--chat-template {path}: cannot read the file ({err.strerror})") from None
    return str(path.resolve()), hashlib.sha256(data).hexdigest()


def task_list(value: str, data: str, suite: str = "mmsoc") -> tuple[str, ...]:
    """The task ids ``--task`` names in ``suite``, less those ``--data sample`` has no sample of (said in a note)."""
    from mmsoc.core.cli import note
    from mmsoc.tasks import parse_task_list
    from mmsoc.tasks.data.load import tasks_for_data

    tasks, left_out = tasks_for_data(parse_task_list(value, suite), data)
    if left_out:
        note(left_out)
    return tasks
