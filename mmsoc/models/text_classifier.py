"""Full fine-tuning of a transformers sequence classifier on text, for the text-only baseline."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from mmsoc.core.distributed import resolve_device


def fit_sequence_classifier(
    model_id_or_dir: str,
    texts: list[str],
    targets: np.ndarray,
    n_labels: int,
    seed: int,
    multilabel: bool = False,
    epochs: int = 3,
    learning_rate: float = 5e-5,
    batch_size: int = 16,
    max_length: int = 128,
    device: str = "auto",
) -> Callable[[list[str]], np.ndarray]:
    """Fine-tune every weight (AdamW, seeded order per epoch, the shared training loop of
    ``mmsoc.runners.training_loop``) and return a texts -> probabilities function.

    ``targets``: class indices below ``n_labels``, or a 0/1 matrix with ``n_labels`` columns when
    ``multilabel`` (sigmoid + BCE loss).
    """
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from mmsoc.runners.training_loop import LoopSettings, train_loop

    torch.manual_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(model_id_or_dir)
    model = AutoModelForSequenceClassification.from_pretrained(
        model_id_or_dir,
        num_labels=n_labels,
        ignore_mismatched_sizes=True,
        problem_type="multi_label_classification" if multilabel else "single_label_classification",
    )
    target = resolve_device(device)
    model.to(target)

    def encode(batch: list[str]):
        return tokenizer(batch, padding=True, truncation=True, max_length=max_length, return_tensors="pt").to(target)

    labels = torch.tensor(targets, dtype=torch.float32 if multilabel else torch.long)

    def collate(rows: list[int]) -> dict[str, torch.Tensor]:
        return {**encode([texts[i] for i in rows]), "labels": labels[rows].to(target)}

    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)
    # In this process only (no accelerator): under ``accelerate launch`` each evaluation process fits its own.
    train_loop(
        model,
        optimizer,
        range(len(texts)),
        collate,
        lambda m, batch: m(**batch).loss,
        LoopSettings(epochs=epochs, micro_batch_size=batch_size, max_grad_norm=None, seed=seed),
    )
    model.eval()

    @torch.inference_mode()
    def probabilities(new: list[str]) -> np.ndarray:
        out = []
        for start in range(0, len(new), batch_size):
            logits = model(**encode(new[start : start + batch_size])).logits.float()
            out.append((torch.sigmoid(logits) if multilabel else torch.softmax(logits, -1)).cpu().numpy())
        return np.concatenate(out) if out else np.zeros((0, n_labels))

    return probabilities
