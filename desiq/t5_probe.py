"""The paper's probe: a T5 encoder fine-tuned with an option-scoring head (any checkpoint or folder)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from tqdm.auto import tqdm

from desiq.probe_backends import check_inputs, flatten, split_scores
from desiq.records import MCQAItem


def pick_device(device: str | None = None) -> torch.device:
    return torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))


class T5Probe:
    """Scores ``question: q answer: a`` (or ``answer: a``) by a linear head on the mean-pooled T5
    encoder; A4 is trained with cross-entropy over each item's options (AdamW)."""

    name = "t5"

    def __init__(self, backbone: str = "t5-small", epochs: int = 3, batch_size: int = 8, lr: float = 1e-4,
                 max_length: int = 64, device: str | None = None, progress: bool = True):
        self.backbone, self.epochs, self.batch_size, self.lr = backbone, epochs, batch_size, lr
        self.max_length, self.device, self.progress = max_length, pick_device(device), progress

    def _texts(self, items: Sequence[MCQAItem]) -> list[str]:
        questions, options, _, _ = flatten(items)
        if self.use_question:
            return [f"question: {q} answer: {a}" for q, a in zip(questions, options)]
        return [f"answer: {a}" for a in options]

    def _pooled(self, texts: list[str]) -> torch.Tensor:
        batch = self.tokenizer(texts, padding=True, truncation=True, max_length=self.max_length,
                               return_tensors="pt").to(self.device)
        hidden = self.encoder(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        return (hidden * mask).sum(1) / mask.sum(1).clamp(min=1)

    def fit(self, items: Sequence[MCQAItem], inputs: str, seed: int) -> None:
        from transformers import AutoTokenizer, T5EncoderModel

        self.use_question = check_inputs(self.name, inputs)
        torch.manual_seed(seed)
        self.tokenizer = AutoTokenizer.from_pretrained(self.backbone)
        self.encoder = T5EncoderModel.from_pretrained(self.backbone).to(self.device)
        self.head = torch.nn.Linear(self.encoder.config.d_model, 1).to(self.device)
        params = list(self.encoder.parameters()) + list(self.head.parameters())
        optimizer = torch.optim.AdamW(params, lr=self.lr)
        rng = np.random.default_rng(seed)
        steps = self.epochs * int(np.ceil(len(items) / self.batch_size))
        self.encoder.train()
        with tqdm(total=steps, desc=f"fine-tuning {self.name}", disable=not self.progress) as bar:
            for _ in range(self.epochs):
                order = rng.permutation(len(items))
                for start in range(0, len(items), self.batch_size):
                    batch = [items[i] for i in order[start:start + self.batch_size]]
                    scores = self.head(self._pooled(self._texts(batch))).squeeze(-1)
                    per_item = torch.split(scores, [len(item.options) for item in batch])
                    loss = torch.stack([
                        torch.nn.functional.cross_entropy(s.unsqueeze(0), torch.tensor([item.answer_idx], device=self.device))
                        for s, item in zip(per_item, batch)]).mean()
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    bar.update(1)
                    bar.set_postfix(loss=f"{loss.item():.3f}")
        self.encoder.eval()

    @torch.no_grad()
    def _encode_all(self, items: Sequence[MCQAItem]) -> torch.Tensor:
        texts = self._texts(items)
        step = self.batch_size * 8
        return torch.cat([self._pooled(texts[i:i + step]) for i in range(0, len(texts), step)])

    def score(self, items: Sequence[MCQAItem]) -> list[np.ndarray]:
        with torch.no_grad():
            flat = self.head(self._encode_all(items)).squeeze(-1).float().cpu().numpy()
        return split_scores(flat, flatten(items)[3])

    def option_features(self, items: Sequence[MCQAItem]) -> np.ndarray:
        return self._encode_all(items).float().cpu().numpy()
