"""Training, scoring, saving and reloading the T5-fusion model (single process or under accelerate)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from desiq.fusion import paper_media
from desiq.fusion.architecture import Architecture, should_stop
from desiq.fusion.build import FusionNet, build_model, collate, load_model, require_models
from desiq.fusion.config import FusionConfig, default_encoders
from desiq.fusion.features import MediaFeatures, extract
from desiq.inputs import InputSetting
from desiq.records import PAIRS, MCQAItem, configs, configs_for, in_config
from mmsoc.core.io import InputError, UsageError, building_folder, check_writable, swap_in_folder, write_json
from mmsoc.core.progress import steps
from mmsoc.media import CachedEncoder, FeatureCache

__all__ = [
    "FusionConfig",
    "FusionScorer",
    "accuracy",
    "chance",
    "default_encoders",
    "fusion_accelerator",
    "train_fusion",
]

CONFIG_FILE = "fusion_config.json"
HEAD_FILE = "fusion_head.safetensors"
BACKBONE_DIR = "backbone"


def scored_configs(scores: Sequence[Sequence[float] | np.ndarray]) -> tuple[str, ...]:
    """The configurations of questions with these option scores (``desiq.records.configs``): ``AK`` (``A4``
    for Social-IQ) and ``A2``; none without scores; a ValueError when the option counts differ."""
    counts = sorted({len(s) for s in scores})
    if len(counts) > 1:
        raise ValueError(f"questions have {' and '.join(map(str, counts))} options; one count per file is needed")
    return configs_for(counts[0]) if counts else ()


DevMetrics = dict[str, float | list[dict[str, float]]]
"""The dev accuracy of the best epoch per configuration, its ``epoch`` and the ``history`` of every epoch."""


def accuracy(answers: Sequence[int | None], scores: Sequence[Sequence[float] | np.ndarray]) -> dict[str, float]:
    """Per configuration (``scored_configs``): ``AK``, the top of the K options is the correct one; ``A2``,
    the correct option outscores each incorrect one (two-option questions have ``A2`` only).

    ``answers``: each item's correct index (None for an unlabelled item, which is left out).
    """
    labelled = [(a, np.asarray(s)) for a, s in zip(answers, scores) if a is not None]
    top = [int(np.argmax(s)) == a for a, s in labelled]
    pairs = [s[a] > s[j] for a, s in labelled for j in range(len(s)) if j != a]
    top_share, pair_share = float(np.mean(top)) if top else 0.0, float(np.mean(pairs)) if pairs else 0.0
    return {c: pair_share if c == PAIRS else top_share for c in scored_configs(scores)}


def chance(names: Sequence[str]) -> dict[str, float]:
    """The accuracy of a uniform guess in each configuration: 1/K for ``AK``, 1/2 for ``A2``."""
    return {c: 1 / int(c[1:]) for c in names}


def _encoders(config: FusionConfig, cache: FeatureCache | None) -> dict[str, CachedEncoder]:
    """The cached media encoders of the media ``config``'s inputs read."""
    cache = cache or FeatureCache()
    return {
        m: CachedEncoder(paper_media.build(config.encoders[m]), cache) for m in InputSetting.parse(config.inputs).media
    }


def media_features(
    config: FusionConfig, items: Sequence[MCQAItem], root: Path | None, cache: FeatureCache | None = None
) -> MediaFeatures:
    """The media features of ``items`` as ``config``'s encoders give them, pooled as its architecture pools."""
    paper = config.architecture == Architecture.paper.value
    return extract(items, root, _encoders(config, cache), paper_media.paper_pool if paper else config.max_tokens)


class FusionScorer:
    """A fusion model with its tokenizer and config: extracts features, scores options, saves itself."""

    def __init__(self, model: FusionNet, tokenizer: Any, config: FusionConfig):
        self.model, self.tokenizer, self.config = model, tokenizer, config
        self.setting = InputSetting.parse(config.inputs)

    def features(
        self, items: Sequence[MCQAItem], root: Path | None, cache: FeatureCache | None = None
    ) -> MediaFeatures:
        return media_features(self.config, items, root, cache)

    def batch(self, items: Sequence[MCQAItem], features: MediaFeatures, device: torch.device) -> dict:
        """``inputs`` (the model's keyword arguments, on ``device``) and ``counts`` (options per item)."""
        b = collate(self.config, items, features, self.model.feature_dims, self.tokenizer)
        return {"inputs": _to(b["inputs"], device), "counts": b["counts"]}

    @torch.inference_mode()
    def embed(self, items: Sequence[MCQAItem], features: MediaFeatures, batch_size: int | None = None) -> np.ndarray:
        """The model's pooled representation of every option (items x options flattened)."""
        self.model.eval()
        device = next(self.model.parameters()).device
        size = batch_size or self.config.batch_size
        rows = [
            self.model.embed(**self.batch(items[k : k + size], features, device)["inputs"]).float().cpu().numpy()
            for k in range(0, len(items), size)
        ]
        return np.concatenate(rows)

    @torch.inference_mode()
    def score(
        self, items: Sequence[MCQAItem], features: MediaFeatures, batch_size: int | None = None
    ) -> list[np.ndarray]:
        """One score per option of each item (higher: more likely correct; for ``paper``, the head's logit)."""
        self.model.eval()
        device = next(self.model.parameters()).device
        out: list[np.ndarray] = []
        size = batch_size or self.config.batch_size
        for start in range(0, len(items), size):
            b = self.batch(items[start : start + size], features, device)
            flat = self.model(**b["inputs"]).float().cpu().numpy()
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
            save_file(
                {k: v.detach().cpu().contiguous() for k, v in self.model.trained_parts().items()}, build / HEAD_FILE
            )
            write_json(build / CONFIG_FILE, {**self.config.to_json(), "feature_dims": self.model.feature_dims})
            for name, obj in (extra or {}).items():
                write_json(build / name, obj)
            swap_in_folder(build, folder)
        return folder

    @classmethod
    def load(cls, folder: str | Path, device: str | torch.device = "cpu") -> FusionScorer:
        """Reload a saved model with every trained part (backbone, projections, head)."""
        folder = Path(folder)
        if not (folder / CONFIG_FILE).is_file():
            raise InputError(
                folder, f"no fusion model here ({CONFIG_FILE} missing); pass a folder written by desiq fusion train"
            )
        obj = json.loads((folder / CONFIG_FILE).read_text(encoding="utf-8"))
        dims = obj.pop("feature_dims")
        config = FusionConfig.from_json(obj)
        model, tokenizer = load_model(config, dims, folder / BACKBONE_DIR, folder / HEAD_FILE)
        return cls(model.to(device).eval(), tokenizer, config)


def _to(value, device):
    """Tensors (in dicts and tuples) moved to ``device``."""
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, dict):
        return {k: _to(v, device) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_to(v, device) for v in value)
    return value


def _trainable_state(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """A copy of every weight but the frozen text encoder's (paper), to restore the best epoch."""
    return {k: v.detach().clone() for k, v in model.state_dict().items() if not k.startswith("text_encoder.")}


def check_model_folder(folder: str | Path) -> None:
    """A UsageError unless ``folder`` can take a saved model: new, empty or an earlier model (never a folder of
    other files, which the save would replace); an OSError if a file cannot be made beside it."""
    folder = Path(folder)
    if folder.is_dir() and any(folder.iterdir()) and not (folder / CONFIG_FILE).is_file():
        raise UsageError(
            f"{folder} is not empty and holds no fusion model ({CONFIG_FILE}); pass a new or empty "
            "folder, or one written by desiq fusion train"
        )
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


def train_fusion(
    train: Sequence[MCQAItem],
    dev: Sequence[MCQAItem],
    root: Path | None,
    config: FusionConfig,
    cache: FeatureCache | None = None,
    accelerator=None,
    progress: bool = False,
) -> tuple[FusionScorer, DevMetrics, MediaFeatures]:
    """Train with AdamW and early stopping on dev (``AK`` or ``A2`` accuracy, ``config.config``); returns the
    best model.

    Cross-entropy over each item's option logits (the paper architecture's head ends in a sigmoid in the
    official code, whose outputs it fed to cross-entropy; we train on the logits). Early stopping by the
    architecture's rule (``should_stop``). Returns (scorer, dev metrics of the best epoch, features of
    train + dev).
    """
    from accelerate.utils import set_seed

    examples = _examples(train, dev, config.config)
    accelerator = accelerator or fusion_accelerator()
    set_seed(config.seed)
    require_models(config)
    with accelerator.main_process_first():  # the model is built once feature widths are known
        features = media_features(config, list(train) + list(dev), root, cache)
    dims = features.dims()
    lost = [m for m in InputSetting.parse(config.inputs).media if m not in dims]
    if lost:
        raise ValueError(f"inputs {config.inputs}: no usable {', '.join(lost)} media for any training video")
    torch.manual_seed(config.seed)
    net, tokenizer = build_model(config, dims)
    scorer = FusionScorer(net.to(accelerator.device), tokenizer, config)
    trained = [p for p in scorer.model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trained, lr=config.lr, weight_decay=config.weight_decay)
    model, optimizer = accelerator.prepare(scorer.model, optimizer)
    best, best_state, history = -1.0, None, []
    rng = np.random.default_rng(config.seed)
    label = f"fusion training ({config.inputs}, {config.config})"
    per_epoch = _first_share(len(examples), config.batch_size, accelerator.num_processes)
    shown = progress and accelerator.is_main_process
    with steps(label, total=config.epochs * per_epoch, enabled=shown) as bar:
        for epoch in range(config.epochs):
            bar.describe(f"{label}: epoch {epoch + 1}/{config.epochs}")
            _train_epoch(model, optimizer, scorer, examples, features, config, accelerator, rng, bar)
            scorer.model = accelerator.unwrap_model(model)
            bar.describe(f"{label}: epoch {epoch + 1}/{config.epochs}, dev scoring")
            dev_metrics = accuracy([x.answer_idx for x in dev], scorer.score(dev, features))
            history.append({"epoch": epoch + 1, **dev_metrics})
            if dev_metrics[config.config] > best:
                best, best_state = dev_metrics[config.config], _trainable_state(scorer.model)
            if should_stop([h[config.config] for h in history], config.patience, config.defaults.stopping):
                break
    assert best_state is not None  # the first epoch's accuracy beats -1
    scorer.model.load_state_dict(best_state, strict=False)
    scorer.model.eval()
    best_epoch = max(history, key=lambda h: h[config.config])
    best_metrics: DevMetrics = {
        **{c: best_epoch[c] for c in configs(dev)},
        "epoch": best_epoch["epoch"],
        "history": history,
    }
    return scorer, best_metrics, features


def _examples(train: Sequence[MCQAItem], dev: Sequence[MCQAItem], config: str) -> list[MCQAItem]:
    """The training questions as ``config`` sees them; a ValueError when dev has another option count or
    the questions have no such configuration."""
    if configs(train) != configs(dev):
        raise ValueError(
            f"training questions have {len(train[0].options)} options, dev questions {len(dev[0].options)}: "
            "train and dev need one option count"
        )
    return in_config(train, config)


def _first_share(n: int, batch_size: int, processes: int) -> int:
    """How many batches of an epoch the main process takes (``_train_epoch``: whole rounds of ``processes``)."""
    batches = -(-n // batch_size)
    return -(-(batches - batches % processes or batches) // processes)


def _train_epoch(model, optimizer, scorer, examples, features, config, accelerator, rng, bar) -> None:
    """One pass over the training examples in a seeded order, this process's share of the batches."""
    model.train()
    order = rng.permutation(len(examples))
    batches = [order[k : k + config.batch_size] for k in range(0, len(order), config.batch_size)]
    batches = batches[: len(batches) - len(batches) % accelerator.num_processes] or batches
    trained = [p for p in model.parameters() if p.requires_grad]
    for idx in batches[accelerator.process_index :: accelerator.num_processes]:
        chunk = [examples[i] for i in idx]
        b = scorer.batch(chunk, features, accelerator.device)
        scores = model(**b["inputs"])
        targets = torch.tensor([x.answer_idx for x in chunk], device=accelerator.device)
        loss = _item_loss(scores, b["counts"], targets)
        optimizer.zero_grad()
        accelerator.backward(loss)
        if config.defaults.clip_grad is not None:
            accelerator.clip_grad_norm_(trained, config.defaults.clip_grad)
        optimizer.step()
        bar.advance()
