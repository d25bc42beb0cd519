"""The options of ``mmsoc finetune``: the base model, the training run and the LoRA adapter."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from mmsoc.core.options import option

BaseModel = Annotated[
    str, option("--model", help="Hub id or local folder (or hf:ID) of the image-text-to-text base model.")
]
AdapterOut = Annotated[Path, option("--out", help="Adapter folder: peft adapter, train_log.jsonl, checkpoints/.")]
TrainTasks = Annotated[str, option("--task", help="`all` or comma-separated task ids, trained together.")]
TrainSplit = Annotated[str, option("--split", help="Split to train on.")]
Explanations = Annotated[
    Path | None,
    option(
        "--explanations",
        help="Teacher explanations: a run folder "
        "of 'mmsoc explain' or a JSONL file (id, explanation); targets "
        "become 'ANSWER Explanation: ...'.",
    ),
]
Epochs = Annotated[int, option("--epochs", min=1, help="Passes over the training items.")]
TrainBatchSize = Annotated[int, option("--batch-size", min=1, help="Examples per optimizer step (all processes).")]
MicroBatchSize = Annotated[
    int, option("--micro-batch-size", min=1, help="Examples per forward pass; gradients accumulate up to --batch-size.")
]
LearningRate = Annotated[float, option("--lr", min=0.0, help="Peak learning rate.")]
WarmupRatio = Annotated[float, option("--warmup-ratio", min=0.0, max=1.0, help="Share of steps warming up.")]
WeightDecay = Annotated[float, option("--weight-decay", min=0.0, help="AdamW weight decay.")]
MaxSteps = Annotated[int | None, option("--max-steps", min=1, help="Stop after this many optimizer steps.")]
SaveEvery = Annotated[int, option("--save-every", min=0, help="Checkpoint every N optimizer steps (0: never).")]
Resume = Annotated[
    bool,
    option(
        "--resume",
        help="Continue from the newest checkpoint in --out (the same configuration only; a different one is refused).",
    ),
]
Precision = Annotated[str, option("--precision", help="auto (bf16 where the GPU supports it), bf16 or no.")]
BaseDtype = Annotated[
    str,
    option(
        "--dtype",
        help="Base weights dtype: auto (bfloat16 when training in bf16, else float32), float32, bfloat16 or float16.",
    ),
]
LoraRank = Annotated[int, option("--lora-rank", min=1, help="LoRA rank r.")]
LoraAlpha = Annotated[int, option("--lora-alpha", min=1, help="LoRA scaling alpha.")]
LoraDropout = Annotated[float, option("--lora-dropout", min=0.0, max=1.0, help="Dropout on the LoRA input.")]
TargetModules = Annotated[
    str,
    option(
        "--target-modules",
        help="'attention' (the language model's attention projections, by the names its architecture uses) "
        "or comma-separated names of language-model linear layers to adapt (lm_head included when named).",
    ),
]
LoraMlp = Annotated[bool, option("--lora-mlp", help="Adapt the language model's MLP projections too.")]
MaxTargetTokens = Annotated[int, option("--max-target-tokens", min=2, help="Longest target kept (tokens).")]
