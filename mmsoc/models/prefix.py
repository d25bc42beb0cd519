"""Scoring and generating from a shared prefix: the media (and whatever text follows them in common) run
through the model once per group of requests, each request's own text and answers against that cache.

Requests that carry the same media (the same files and frames) form a group. Their prompts are tokenised
as the processor tokenises them; the longest common token prefix that holds every media placeholder
(and leaves each request at least one token of its own) is run once, with the processor's media inputs,
keeping the KV cache. Then, per request, its remaining prompt tokens run once against a copy of that
cache (the second level), and its options' tokens run as one batch against a copy of that (right padded,
so every real token keeps its position). A token is scored from the same logits as on the full path, so
the two agree to float precision; ``--prefix-cache off`` runs the full path.

Memory stays bounded: one prefix cache (batch 1) at a time, copied for one request and then for its options;
a group whose prefix does not fit in accelerator memory, or whose prompts share no prefix holding their
media, runs on the full path (``--batch-size auto`` halving there) and is counted (``groups_unshared``).
Families whose forward needs the media on every call (BLIP-2, InstructBLIP: the Q-Former output is
not in the cache) and encoder-decoder models take the full path; ``runtime.json`` says which ran and why.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from mmsoc.models.base import Audio, GenerationSettings, Image, Request, Video

if TYPE_CHECKING:
    from mmsoc.models.backends.hf import HFModel

SHARED_FAMILIES = frozenset(
    {"llava", "llava_next", "llava_onevision", "llava_next_video", "video_llava", "qwen2_vl", "qwen2_5_vl"}
)
"""Families whose text continues from a cache holding their media (checked against the full path by tests)."""


@dataclass
class Work:
    """What the language model and vision tower did (summed into runtime.json)."""

    rows_scored: int = 0
    prefix_passes: int = 0
    tokens_processed: int = 0
    frames_encoded: int = 0

    def count_full(self, batch: Any, frames: int, targets: Sequence[Sequence[int]] = ()) -> None:
        """A full-path forward: every real prompt token (and its targets), every frame of the batch."""
        self.tokens_processed += int(batch["attention_mask"].sum()) + sum(len(t) for t in targets)
        self.frames_encoded += frames

    def to_json(self) -> dict[str, int]:
        return asdict(self)


def sharing(model: Any, encoder_decoder: bool, setting: str) -> tuple[str, str]:
    """(path, why): ``shared-prefix`` or ``full``, and the reason."""
    if setting not in ("auto", "off"):
        raise ValueError(f"--prefix-cache {setting!r}: choose auto or off")
    model_type = getattr(model.config, "model_type", "")
    if setting == "off":
        return "full", "--prefix-cache off"
    if encoder_decoder:
        return "full", f"{model_type} is an encoder-decoder model: its decoder re-reads the whole encoder output"
    if model_type not in SHARED_FAMILIES:
        return "full", f"{model_type or 'this family'} is not among the families checked to continue from a cache"
    return "shared-prefix", f"{model_type} continues from a cache holding its media"


def media_key(request: Request) -> tuple:
    """What a request shows besides text (files and frames kept): requests with equal keys share media."""
    return tuple(
        (type(part).__name__, part.path, getattr(part, "frames", None))
        for part in request.parts
        if isinstance(part, (Image, Video, Audio))
    )


@dataclass
class Prefix:
    """A prefix run once: its cache (batch 1), the log-probabilities after its last token, its length."""

    ids: list[int]
    """The prefix's tokens as the model reads them (media tokens inserted)."""
    text: int
    """How many of each request's own prompt tokens (before media insertion) the prefix covers."""
    cache: Any
    rope_deltas: list[Any]
    """The position state of ``SharedPrefix.stateful`` modules after this prefix ran."""


class CannotShare(ValueError):
    """The group's prompts do not share a prefix that holds their media."""


class SharedPrefix:
    """The shared-prefix path of one :class:`~mmsoc.models.backends.hf.HFModel`."""

    def __init__(self, owner: HFModel):
        self.owner = owner
        self.stateful = [m for m in owner.model.modules() if hasattr(m, "rope_deltas")]
        """Modules that keep position state from their last prefill (Qwen-VL's rope deltas)."""
        self._last: tuple[tuple, Prefix] | None = None
        self.fallbacks = 0
        """Groups that took the full path (no shared prefix holding their media, or out of memory)."""

    def score(
        self, requests: Sequence[Request], prompts: Sequence[str], targets: Sequence[Sequence[Sequence[int]]]
    ) -> list[list[float]]:
        from mmsoc.core.batching import free_accelerator_memory, is_out_of_memory

        out: list[list[float]] = [[] for _ in requests]
        for group in _groups(requests):
            ids = [self.owner.inputs.prompt_ids(prompts[i]) for i in group]
            try:
                prefix = self._prefix(requests[group[0]], ids)
                for i, row in zip(group, ids):
                    out[i] = self._score_one(prefix, row[prefix.text :], targets[i])
            except Exception as err:  # a group that cannot share, or does not fit in memory, runs whole
                if not isinstance(err, CannotShare) and not is_out_of_memory(err):
                    raise
                self._last = None
                free_accelerator_memory()
                self.fallbacks += 1
                full = self.owner._score_full([requests[i] for i in group], [targets[i] for i in group])
                for i, scores in zip(group, full):
                    out[i] = scores
        return out

    def generate(self, requests: Sequence[Request], settings: GenerationSettings) -> list[str]:
        import torch

        out = [""] * len(requests)
        for group in _groups(requests):
            prompts = self.owner.prompts([requests[i] for i in group])
            ids = [self.owner.inputs.prompt_ids(p) for p in prompts]
            try:
                prefix = self._prefix(requests[group[0]], ids)
            except CannotShare:
                texts = self.owner.generate_full([requests[i] for i in group], settings)
                for i, text in zip(group, texts):
                    out[i] = text
                continue
            for i, row in zip(group, ids):
                self._restore(prefix)
                device = self.owner.model.device
                full = torch.tensor([prefix.ids + row[prefix.text :]], device=device)
                generated = self.owner.run_generate(
                    {"input_ids": full, "attention_mask": torch.ones_like(full)},
                    [requests[i].rng_seed],
                    settings,
                    cache=copy.deepcopy(prefix.cache),
                )
                self.owner.work.tokens_processed += len(row) - prefix.text + generated.shape[1] - full.shape[1]
                out[i] = self.owner.decode(generated[:, full.shape[1] :])[0]
        return out

    # --- the two levels ----------------------------------------------------------------------------

    def _prefix(self, request: Request, ids: Sequence[Sequence[int]]) -> Prefix:
        """The group's common prefix run once (or the last one, when it is the same)."""
        import torch

        n = _common(ids)
        key = (media_key(request), tuple(ids[0][:n]))
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        batch = self.owner.encode([request], padding_side="right")
        expanded = batch["input_ids"][0].tolist()
        tail = len(ids[0]) - n
        if n == 0 or expanded[len(expanded) - tail :] != list(ids[0][n:]):
            raise CannotShare("the media are not all inside the common prefix")
        width = len(expanded) - tail
        shape = batch["input_ids"].shape
        inputs = {
            key: value[:, :width] if torch.is_tensor(value) and value.shape[:2] == shape else value
            for key, value in batch.items()
        }
        for module in self.stateful:
            module.rope_deltas = None
        with torch.inference_mode():
            result = self.owner.model(**inputs, use_cache=True)
        cache = result.cache
        prefix = Prefix(expanded[:width], n, cache, [m.rope_deltas for m in self.stateful])
        work = self.owner.work
        work.prefix_passes += 1
        work.tokens_processed += width
        work.frames_encoded += self.owner.inputs.frames_of([request])
        self._last = (key, prefix)
        return prefix

    def _restore(self, prefix: Prefix) -> None:
        for module, value in zip(self.stateful, prefix.rope_deltas):
            module.rope_deltas = value

    def _score_one(self, prefix: Prefix, own: Sequence[int], targets: Sequence[Sequence[int]]) -> list[float]:
        """One request: its own prompt tokens against the prefix, then its options as one batch."""
        import torch

        model, device = self.owner.model, self.owner.model.device
        self._restore(prefix)
        cache = copy.deepcopy(prefix.cache)
        with torch.inference_mode():
            result = model(input_ids=torch.tensor([list(own)], device=device), cache=cache, use_cache=True)
        first = torch.log_softmax(result.logits[0, -1].float(), dim=-1)
        scores = [float(first[t[0]].double()) if t else 0.0 for t in targets]
        longer = [k for k, t in enumerate(targets) if len(t) > 1]
        self.owner.work.tokens_processed += len(own) + sum(len(targets[k]) - 1 for k in longer)
        if not longer:
            return scores
        rows = [list(targets[k][:-1]) for k in longer]
        length = max(len(r) for r in rows)
        pad = int(self.owner.tokenizer.pad_token_id or 0)
        ids = torch.tensor([r + [pad] * (length - len(r)) for r in rows], device=device)
        cache.batch_repeat_interleave(len(rows))
        with torch.inference_mode():  # no mask: every row is real up to its padding, which only follows it
            logits = model(input_ids=ids, cache=cache, use_cache=True).logits
        logprobs = torch.log_softmax(logits.float(), dim=-1)
        for j, k in enumerate(longer):
            following = torch.tensor(list(targets[k][1:]), device=device)
            steps = torch.arange(len(following), device=device)
            scores[k] += float(logprobs[j, steps, following].double().sum())
        return scores


def _groups(requests: Sequence[Request]) -> list[list[int]]:
    """Indices of requests with the same media, in first-seen order."""
    groups: dict[tuple, list[int]] = {}
    for i, request in enumerate(requests):
        groups.setdefault(media_key(request), []).append(i)
    return list(groups.values())


def _common(ids: Sequence[Sequence[int]]) -> int:
    """The longest common prefix of the rows that leaves every row at least one token of its own."""
    shortest = min(len(row) for row in ids)
    n = 0
    while n < shortest - 1 and all(row[n] == ids[0][n] for row in ids):
        n += 1
    return n
