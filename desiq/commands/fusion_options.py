"""The options of ``desiq fusion train``, worded for the two T5-fusion architectures."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from desiq.fusion.architecture import AUDIO_ENCODER, DEFAULTS, TEXT_ENCODER, Architecture
from mmsoc.core.options import option

TrainData = Annotated[
    Path,
    option(
        "--data",
        help="Social-IQ folder: trains on qa/qa_train.json with early stopping on "
        "qa/qa_val.json, media by vid_name. Or a single QA file (inputs "
        "without media; any MCQA file with K options, see --fields): a seeded fifth of its videos "
        "(groups) is the dev set.",
    ),
]
Backbone = Annotated[
    str,
    option(
        "--backbone",
        help="T5 checkpoint id (t5-small) or local folder with the checkpoint "
        "and tokenizer, e.g. from `hf download google-t5/t5-small "
        "--local-dir DIR`; its encoder is used.",
    ),
]
ModelOut = Annotated[Path, option("--out", help="Model folder to write (backbone/, head, config, metrics.json).")]
ArchitectureChoice = Annotated[
    Architecture,
    option(
        "--architecture",
        help="paper: the official DeSIQ Concat model (frozen BERT features of q, a and transcript through "
        "Linear(768->512), frozen ViT frames and wav2vec2 audio, [q|t|v|s|a] through T5, segment ends, "
        "sigmoid MLP head; its defects fixed, see desiq/fusion/architecture.py); ours: T5 fine-tuned over "
        "the q/a tokens with pooled, masked media.",
    ),
]
TrainInputs = Annotated[
    str,
    option(
        "--inputs",
        help="Input setting: q question, a answer, t transcript, v video, "
        "s audio, joined by '+'; 'a' alone is the paper's NCAQ (options "
        "only: no question, no media).",
    ),
]
TrainChoices = Annotated[
    str,
    option(
        "--choices",
        help="AK (or its name: A4 for Social-IQ, A3 for three options): cross-entropy over all K options; "
        "A2: over (correct, incorrect) pairs.",
    ),
]
Epochs = Annotated[int | None, option("--epochs", help="Maximum training epochs (default 40 paper, 10 ours).")]
Lr = Annotated[float, option("--lr", help="AdamW learning rate.")]
TrainBatchSize = Annotated[
    int | None, option("--batch-size", help="Questions per training step per process (default 1 paper, 8 ours).")
]
Patience = Annotated[
    int | None,
    option(
        "--patience",
        help="paper: stop after more than this many dev decreases in a "
        "row (default 4, the official rule); ours: after this many "
        "epochs without a better dev score (default 3).",
    ),
]
VideoEncoder = Annotated[
    str | None,
    option(
        "--video-encoder",
        help="paper: transformers ViT id or folder (default "
        f"{DEFAULTS[Architecture.paper].video_encoder}); ours: "
        "open_clip architecture, open_clip folder, or hf:ID / "
        "transformers CLIP folder (default ViT-B-32).",
    ),
]
VideoPretrained = Annotated[
    str,
    option("--video-pretrained", help="ours: open_clip pretrained tag or checkpoint file ('none': random weights)."),
]
NumFrames = Annotated[
    int | None,
    option(
        "--num-frames",
        help="paper: the first N frames at one per second (default 60); ours: N frames sampled uniformly (default 8).",
    ),
]
AudioEncoder = Annotated[
    str,
    option(
        "--audio-encoder",
        help="A transformers speech encoder id or folder (wav2vec2-style, "
        f"default {AUDIO_ENCODER} as the paper), or 'logmel' (log-mel "
        "features, no pretrained model).",
    ),
]
TextEncoder = Annotated[
    str | None,
    option(
        "--text-encoder",
        help="paper: the frozen BERT-style encoder of question, "
        f"options and transcript (default {TEXT_ENCODER}); ours: "
        "the sentence encoder of transcript cues (default: the "
        "shipped all-MiniLM-L6-v2).",
    ),
]
MaxTokens = Annotated[
    int, option("--max-tokens", help="ours: feature positions per modality (longer sequences are average-pooled).")
]
