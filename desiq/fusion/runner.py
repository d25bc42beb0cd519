"""Training, scoring, saving and reloading the T5-fusion model (single process or under accelerate)."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from desiq.fusion.features import MediaFeatures, extract
from desiq.fusion.model import FusionModel, collate
from desiq.inputs import InputSetting
from desiq.records import MCQAItem, to_a2
from mmsoc.core.io import InputError, UsageError, building_folder, check_writable, swap_in_folder, write_json
from mmsoc.media import (
    AudioEncoder,
    CachedEncoder,
    EncoderSpec,
    FeatureCache,
    TranscriptEncoder,
    VideoEncoder,
    build_encoder,
)

CONFIG_FILE = "fusion_config.json"
HEAD_FILE = "fusion_head.safetensors"
BACKBONE_DIR = "backbone"


def default_encoders(video_model: str = "ViT-B-32", video_pretrained: str | None = "openai", num_frames: int = 8,
                     audio_model: str = "logmel", text_model: str = "default") -> dict[str, EncoderSpec]:
    """Encoder specs per media modality (open_clip frames, log-mel audio, MiniLM transcript cues)."""
    return {"transcript": TranscriptEncoder(text_model).spec,
            "video": VideoEncoder(video_model, video_pretrained, num_frames=num_frames).spec,
            "audio": AudioEncoder(audio_model).spec}


@dataclass
class FusionConfig:
    """Everything that defines a fusion model and its training; saved with the model."""

    backbone: str
    inputs: str = "q+a+t+v+s"
    config: str = "A4"
    encoders: dict[str, EncoderSpec] = field(default_factory=default_encoders)
    max_tokens: int = 16
    max_text_len: int = 96
    lr: float = 1e-4
    weight_decay: float = 0.01
    epochs: int = 10
    batch_size: int = 8
    patience: int = 3
    seed: int = 42

    def __post_init__(self):
        self.inputs = InputSetting.parse(self.inputs).name
        if self.config not in ("A4", "A2"):
            raise ValueError(f"config must be A4 or A2, not {self.config!r}")

    def to_json(self) -> dict:
        return {**asdict(self), "encoders": {m: s.to_json() for m, s in self.encoders.items()}}

    @classmethod
    def from_json(cls, obj: dict) -> FusionConfig:
        return cls(**{**obj, "encoders": {m: EncoderSpec.from_json(s) for m, s in obj["encoders"].items()}})


def accuracy(answers: Sequence[int | None], scores: Sequence[Sequence[float]]) -> dict[str, float]:
    """A4: the top option is the correct one; A2: the correct option outscores each incorrect one.

    ``answers``: each item's correct index (None for an unlabelled item, which is left out).
    """
    labelled = [(a, np.asarray(s)) for a, s in zip(answers, scores) if a is not None]
    top = [int(np.argmax(s)) == a for a, s in labelled]
    pairs = [s[a] > s[j] for a, s in labelled for j in range(len(s)) if j != a]
    return {"A4": float(np.mean(top)) if top else 0.0, "A2": float(np.mean(pairs)) if pairs else 0.0}


class FusionScorer:
    """A fusion model with its tokenizer and config: extracts features, scores options, saves itself."""

    def __init__(self, model: FusionModel, tokenizer, config: FusionConfig):
        self.model, self.tokenizer, self.config = model, tokenizer, config
        self.setting = InputSetting.parse(config.inputs)

    def encoders(self, cache: FeatureCache | None = None) -> dict[str, CachedEncoder]:
        cache = cache or FeatureCache()
        return {m: CachedEncoder(build_encoder(self.config.encoders[m]), cache) for m in self.setting.media}

    def features(self, items: Sequence[MCQAItem], root: Path | None,
                 cache: FeatureCache | None = None) -> MediaFeatures:
        return extract(items, root, self.encoders(cache), self.config.max_tokens)

    def batch(self, items: Sequence[MCQAItem], features: MediaFeatures, device: torch.device) -> dict:
        b = collate(items, features, self.model.feature_dims, self.tokenizer, self.setting.question,
                    self.config.max_text_len)
        return {"input_ids": b["input_ids"].to(device), "attention_mask": b["attention_mask"].to(device),
                "media": {m: (v.to(device), k.to(device)) for m, (v, k) in b["media"].items()}, "counts": b["counts"]}

    @torch.inference_mode()
    def score(self, items: Sequence[MCQAItem], features: MediaFeatures,
              batch_size: int | None = None) -> list[np.ndarray]:
        """One score per option of each item (higher: more likely correct)."""
        self.model.eval()
        device = next(self.model.parameters()).device
        out: list[np.ndarray] = []
        size = batch_size or self.config.batch_size
        for start in range(0, len(items), size):
            b = self.batch(items[start:start + size], features, device)
            flat = self.model(b["input_ids"], b["attention_mask"], b["media"]).float().cpu().numpy()
            out.extend(np.split(flat.astype(np.float64), np.cumsum(b["counts"])[:-1]))
        return out

    def save(self, folder: str | Path, extra: dict[str, dict] | None = None) -> Path:
        """Write backbone (T5 encoder + tokenizer), head, config and ``extra`` JSON files (name -> object,
        e.g. metrics.json) into a new folder beside ``folder``, then put it in place in one rename: a reader
        (or a kill) sees the previous model or the new one, never parts of both.

        ``folder`` must be new, empty or a model folder written here before (never another folder's files).
        """
        from safetensors.torch import save_file

        folder = Path(folder)
        check_model_folder(folder)
        with building_folder(folder) as build:
            self.model.encoder.save_pretrained(build / BACKBONE_DIR)
            self.tokenizer.save_pretrained(build / BACKBONE_DIR)
            save_file({k: v.detach().cpu().contiguous() for k, v in self.model.trained_parts().items()},
                      build / HEAD_FILE)
            write_json(build / CONFIG_FILE, {**self.config.to_json(), "feature_dims": self.model.feature_dims})
            for name, obj in (extra or {}).items():
                write_json(build / name, obj)
            swap_in_folder(build, folder)
        return folder

    @classmethod
    def load(cls, folder: str | Path, device: str | torch.device = "cpu") -> FusionScorer:
        """Reload a saved model with every trained part (backbone, projections, head)."""
        from safetensors.torch import load_file
        from transformers import AutoTokenizer, T5EncoderModel

        folder = Path(folder)
        if not (folder / CONFIG_FILE).is_file():
            raise InputError(folder, f"no fusion model here ({CONFIG_FILE} missing); pass a folder written by "
                                     "desiq train")
        obj = json.loads((folder / CONFIG_FILE).read_text(encoding="utf-8"))
        dims = obj.pop("feature_dims")
        encoder = T5EncoderModel.from_pretrained(folder / BACKBONE_DIR)
        model = FusionModel(encoder, dims)
        missing, unexpected = model.load_state_dict(load_file(folder / HEAD_FILE), strict=False)
        if unexpected or any(not k.startswith("encoder.") for k in missing):
            raise ValueError(f"{folder / HEAD_FILE}: does not match the model (missing {missing}, "
                             f"unexpected {unexpected})")
        return cls(model.to(device).eval(), AutoTokenizer.from_pretrained(folder / BACKBONE_DIR),
                   FusionConfig.from_json(obj))


def check_model_folder(folder: str | Path) -> None:
    """A UsageError unless ``folder`` can take a saved model: new, empty or an earlier model (never a folder of
    other files, which the save would replace); an OSError if a file cannot be made beside it."""
    folder = Path(folder)
    if folder.is_dir() and any(folder.iterdir()) and not (folder / CONFIG_FILE).is_file():
        raise UsageError(f"{folder} is not empty and holds no fusion model ({CONFIG_FILE}); pass a new or empty "
                         "folder, or one written by desiq train")
    check_writable(folder.parent)


def _item_loss(scores: torch.Tensor, counts: list[int], targets: torch.Tensor) -> torch.Tensor:
    """Cross-entropy over each item's options (items may have different option counts)."""
    rows = torch.split(scores, counts)
    padded = torch.nn.utils.rnn.pad_sequence(list(rows), batch_first=True, padding_value=float("-inf"))
    return torch.nn.functional.cross_entropy(padded, targets)


def fusion_accelerator():
    """The Accelerator of training and evaluation: one process by default, one per ``accelerate launch``
    process otherwise (on the CPU too, see ``mmsoc.core.distributed``); media of some items may be masked,
    so DDP looks for unused parameters."""
    from accelerate.utils import DistributedDataParallelKwargs

    from mmsoc.core.distributed import make_accelerator

    return make_accelerator(kwargs_handlers=[DistributedDataParallelKwargs(find_unused_parameters=True)])


def train_fusion(train: Sequence[MCQAItem], dev: Sequence[MCQAItem], root: Path | None, config: FusionConfig,
                 cache: FeatureCache | None = None, accelerator=None, progress: bool = False
                 ) -> tuple[FusionScorer, dict, MediaFeatures]:
    """Train with AdamW and early stopping on dev (A4 or A2 accuracy); returns the best model.

    Returns (scorer, dev metrics of the best epoch, features of train + dev).
    """
    from accelerate.utils import set_seed
    from transformers import AutoTokenizer, T5EncoderModel

    accelerator = accelerator or fusion_accelerator()
    set_seed(config.seed)
    tokenizer = AutoTokenizer.from_pretrained(config.backbone)
    encoder = T5EncoderModel.from_pretrained(config.backbone)
    scorer = FusionScorer(None, tokenizer, config)  # model is built once feature widths are known
    with accelerator.main_process_first():
        features = scorer.features(list(train) + list(dev), root, cache)
    dims = features.dims()
    lost = [m for m in scorer.setting.media if m not in dims]
    if lost:
        raise ValueError(f"inputs {config.inputs}: no usable {', '.join(lost)} media for any training video")
    torch.manual_seed(config.seed)
    scorer.model = FusionModel(encoder, dims).to(accelerator.device)
    examples = to_a2(train) if config.config == "A2" else list(train)
    optimizer = torch.optim.AdamW(scorer.model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    model, optimizer = accelerator.prepare(scorer.model, optimizer)
    best, best_state, stale, history = -1.0, None, 0, []
    rng = np.random.default_rng(config.seed)
    for epoch in _epochs(config.epochs, progress and accelerator.is_main_process):
        model.train()
        order = rng.permutation(len(examples))
        batches = [order[k:k + config.batch_size] for k in range(0, len(order), config.batch_size)]
        batches = batches[: len(batches) - len(batches) % accelerator.num_processes] or batches
        for idx in batches[accelerator.process_index::accelerator.num_processes]:
            chunk = [examples[i] for i in idx]
            b = scorer.batch(chunk, features, accelerator.device)
            scores = model(b["input_ids"], b["attention_mask"], b["media"])
            targets = torch.tensor([x.answer_idx for x in chunk], device=accelerator.device)
            loss = _item_loss(scores, b["counts"], targets)
            optimizer.zero_grad()
            accelerator.backward(loss)
            accelerator.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
        scorer.model = accelerator.unwrap_model(model)
        dev_metrics = accuracy([x.answer_idx for x in dev], scorer.score(dev, features))
        history.append({"epoch": epoch + 1, **dev_metrics})
        if dev_metrics[config.config] > best:
            best, best_state, stale = dev_metrics[config.config], copy.deepcopy(scorer.model.state_dict()), 0
        else:
            stale += 1
            if stale >= config.patience:
                break
    scorer.model.load_state_dict(best_state)
    scorer.model.eval()
    best_epoch = max(history, key=lambda h: h[config.config])
    dev_metrics = {"A4": best_epoch["A4"], "A2": best_epoch["A2"], "epoch": best_epoch["epoch"], "history": history}
    return scorer, dev_metrics, features


def _epochs(n: int, show: bool):
    if not show:
        return range(n)
    from rich.console import Console
    from rich.progress import track

    return track(range(n), description="training epochs", console=Console(stderr=True), transient=True)
