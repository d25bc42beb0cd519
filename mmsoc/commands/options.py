"""Options shared by the ``mmsoc`` commands that load data and run a model (typer copies each use)."""

from __future__ import annotations

from typing import Annotated

import typer

DATA = typer.Option("sample", "--data", help="Data folder in the MM-Soc layout, or 'sample'.")
LIMIT = typer.Option(None, "--limit", min=0, help="At most this many items per task.")
REQUEST_BATCH = typer.Option(8, "--batch-size", min=1, help="Requests per model call (never changes results).")
SEED = typer.Option(0, "--seed", help="Sampling seed (ignored with --greedy).")
MAX_NEW_TOKENS = typer.Option(256, "--max-new-tokens", min=1, help="Most tokens generated per response.")
TOP_P = typer.Option(0.9, "--top-p", min=0.0, max=1.0, help="Nucleus sampling mass (sampling only).")
TEMPERATURE = typer.Option(1.0, "--temperature", min=1e-6, help="Sampling temperature (sampling only).")
ADAPTER = typer.Option(None, "--adapter", help="peft (LoRA) adapter folder applied to --model.")
DTYPE = typer.Option("float32", "--dtype", help="Model weights dtype: float32, bfloat16, float16 or auto.")
DEVICE = typer.Option("auto", "--device", help="Device (cpu, cuda, cuda:1, ...); auto = this process's.")
PROMPT_VERSION = typer.Option(None, "--prompt-version", help="Prompt table version (default: latest).")
PROMPTS_FILE = typer.Option(None, "--prompts", help="JSON/YAML file of task id -> prompt overrides.")
PROGRESS = typer.Option(True, "--progress/--no-progress", help="Show a progress bar.")
TextLength = Annotated[
    int,
    typer.Option(
        "--text-length",
        min=0,
        help="Words of a news text kept (misinformation; MM-Soc's truncate_input with "
        "--text_input_length 128, the paper's default); 0 keeps the whole text.",
    ),
]
