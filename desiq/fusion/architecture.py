"""The two T5-fusion architectures and their defaults (no heavy imports: the command line reads this).

``paper`` follows the official DeSIQ Concat model (guoxiaoyu-gxy/DeSIQ ``socialiq2/multimodal_model.py``):
frozen BERT features of question, options and transcript through ``Linear(768 -> 512)``, frozen ViT
frames (60, one per second, tokens averaged) and wav2vec2 audio (50 frames averaged) through their own
projections, the sequence [q | t | v | s | a_k] through a T5-small encoder, the states at each segment's
end concatenated, and a sigmoid MLP head (``Linear(n * 512 -> 25)``, sigmoid, ``Linear(25 -> 1)``);
AdamW lr 1e-4, batch 1, at most 40 epochs, stop after 5 dev decreases in a row.

Where we differ from the official code, on purpose (each is a defect of that code):

- cross-entropy over the four sigmoid *outputs* (logits squeezed into (0, 1): a near-uniform softmax,
  tiny gradients) -> cross-entropy over the head's logits; the sigmoid of our score is the official output;
- ``LongT5EncoderModel.from_pretrained('t5-small')`` leaves every self-attention weight of the encoder
  untrained (LongT5 names them ``LocalSelfAttention``, t5-small ``SelfAttention``) -> a T5 encoder with
  all its pretrained weights;
- frames in ``os.listdir`` order -> sorted by name; the video id parsed from ``qid`` (drops the 874
  training questions whose YouTube id holds ``_``) -> ``vid_name``; dev accuracy on training rows (v1)
  and an untrained head at prediction time (v1) -> the dev split, and every trained part saved;
- the audio segment's end taken at ``49 + image_num`` whatever the number of audio vectors -> the real
  end of each segment; frozen encoders left in training mode (dropout on) -> evaluation mode;
- items without a transcript or frames dropped -> kept, the missing modality a zero vector, counted.

Kept as the official code does it: no attention mask inside a sequence (padding tokens of the 50-token
question and options, and of the 500-token transcript, are attended to and the segment ends may be
padding positions), the shared text projection for question, options and transcript, no gradient
clipping, AdamW with weight decay 0.01. We shuffle the training questions with the seed (the official
loop visits them in file order).

``ours`` is this toolkit's model (``desiq.fusion.model``): the T5 encoder over the question and option
tokens themselves (fine-tuned), each medium layer-normed, projected and tagged with a modality
embedding, masked mean pooling and a linear head; media pooled to ``max_tokens`` positions.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum


class Architecture(str, Enum):
    paper = "paper"
    ours = "ours"


TEXT_ENCODER = "bert-base-uncased"
VIDEO_ENCODER = "google/vit-base-patch16-224-in21k"
AUDIO_ENCODER = "facebook/wav2vec2-base-960h"
"""The official frozen encoders; the audio default of both architectures (the spec's wav2vec2-style encoder)."""
TEXT_LEN = 50
TRANSCRIPT_TOKENS = 500
TRANSCRIPT_WINDOW = 10
IMAGE_NUM = 60
FRAMES_PER_SECOND = 1.0
AUDIO_WINDOW = 50
HEAD_HIDDEN = 25


@dataclass(frozen=True)
class Defaults:
    """What ``desiq fusion train`` uses unless told otherwise."""

    epochs: int
    patience: int
    batch_size: int
    text_encoder: str
    video_encoder: str
    num_frames: int
    audio_encoder: str
    clip_grad: float | None
    stopping: str
    """``decrease``: stop after more than ``patience`` dev decreases in a row (official); ``best``: after
    ``patience`` epochs without a better dev score than the best so far."""


DEFAULTS = {
    Architecture.paper: Defaults(40, 4, 1, TEXT_ENCODER, VIDEO_ENCODER, IMAGE_NUM, AUDIO_ENCODER, None, "decrease"),
    Architecture.ours: Defaults(10, 3, 8, "default", "ViT-B-32", 8, AUDIO_ENCODER, 1.0, "best"),
}


def should_stop(dev_scores: Sequence[float], patience: int, stopping: str) -> bool:
    """Whether training stops after the epochs whose dev scores are ``dev_scores`` (in order)."""
    if stopping == "decrease":
        run = 0
        for before, now in itertools.pairwise(dev_scores):
            run = run + 1 if before > now else 0
        return run > patience
    if stopping == "best":
        best = max(range(len(dev_scores)), key=lambda k: (dev_scores[k], -k), default=-1)
        return len(dev_scores) - 1 - best >= patience
    raise ValueError(f"stopping rule must be 'decrease' or 'best', not {stopping!r}")
