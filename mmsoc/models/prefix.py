"""Scoring and generating from a tree of shared prefixes: a token whose prefix was already computed is not
computed again.

Requests that carry the same media (the same files and frames) form a group. Their prompts are tokenised
as the processor tokenises them; the longest common token prefix that holds every media placeholder (and
leaves each request at least one token of its own) is run once, with the processor's media inputs,
keeping the KV cache (batch 1). Every option row's own tokens (the rest of its prompt, then its option's
tokens but the last) go into a token trie (:class:`Trie`): on Social-IQ it finds transcript, question and
options, on any template whatever the rows share. The trie's nodes run against the prefix cache packed
into one sequence, each node attending to the prefix, its ancestors and itself (a tree attention mask,
positions by depth): the K options of a question, and every question of the group, continue from one
cache without a copy of it, and the nodes' entries are cropped off when the group is done. A token is
scored from the logits the full path would give it, so the two agree to float precision;
``--prefix-cache off`` runs the full path.

Batches and memory: a pass holds the new nodes of at most ``--batch-size`` requests' rows (``auto``: as many
as fit) and of no more rows than fit the memory budget (the memory free on the device, or
``--prefix-memory`` GiB) beside the prefix cache and the nodes already run. Only a group whose prefix
alone does not fit, or whose prompts share no prefix holding their media, runs on the full path; it is
listed in ``full_path_videos``. Families whose forward needs the media on every call (BLIP-2,
InstructBLIP: the Q-Former output is not in the cache) and encoder-decoder models take the full path;
``runtime.json`` says which ran and why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from mmsoc.models.base import Audio, GenerationSettings, Image, Request, Video
from mmsoc.models.tree import Footprint, Row, Trie

if TYPE_CHECKING:
    from mmsoc.models.backends.hf import HFModel

SHARED_FAMILIES = frozenset(
    {"llava", "llava_next", "llava_onevision", "llava_next_video", "video_llava", "qwen2_vl", "qwen2_5_vl"}
)
"""Families whose text continues from a cache holding their media (checked against the full path by tests)."""

GIB = 2**30


@dataclass
class Work:
    """What the language model and vision tower did (summed into runtime.json)."""

    rows_scored: int = 0
    """Option rows actually scored (identical requests once)."""
    rows_answered: int = 0
    """Option rows that received a score."""
    forward_passes: int = 0
    prefix_passes: int = 0
    tokens_processed: int = 0
    attended_tokens: int = 0
    """The context each processed token attended over, summed (what attention costs, beside the tokens)."""
    frames_encoded: int = 0
    full_path_videos: list[str] = field(default_factory=list)
    """The media of groups that took the full path on the shared-prefix path, each with why."""

    def count_full(self, batch: Any, frames: int, targets: Sequence[Sequence[int]] = (), written: int = 0) -> None:
        """A full-path forward (and the ``written`` tokens generated after it, one pass each): every real
        prompt token (and its targets), every frame of the batch."""
        lengths = [int(n) for n in batch["attention_mask"].sum(1).tolist()]
        lengths = [n + len(t) for n, t in zip(lengths, targets)] if targets else lengths
        grown = [n + written for n in lengths]
        self.count(sum(grown), sum(n * (n + 1) // 2 for n in grown), passes=max(written, 1))
        self.frames_encoded += frames

    def count(self, tokens: int, attended: int, passes: int = 1) -> None:
        self.forward_passes += passes
        self.tokens_processed += tokens
        self.attended_tokens += attended

    def to_json(self) -> dict[str, Any]:
        rows_per_pass = round(self.rows_scored / self.forward_passes, 2) if self.forward_passes else 0.0
        return {**asdict(self), "rows_per_pass": rows_per_pass}


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
    """A prefix run once: its tokens, its cache (batch 1) and the position state after it."""

    ids: list[int]
    """The prefix's tokens as the model reads them (media tokens inserted)."""
    text: int
    """How many of each request's own prompt tokens (before media insertion) the prefix covers."""
    cache: Any
    rope_deltas: list[Any]
    """The position state of ``SharedPrefix.stateful`` modules after this prefix ran."""


class CannotShare(ValueError):
    """The group's prompts do not share a prefix that holds their media."""


class OverBudget(ValueError):
    """A group's prefix alone does not fit the memory budget."""


class SharedPrefix:
    """The shared-prefix path of one :class:`~mmsoc.models.backends.hf.HFModel`."""

    def __init__(self, owner: HFModel):
        self.owner = owner
        self.stateful = [m for m in owner.model.modules() if hasattr(m, "rope_deltas")]
        """Modules that keep position state from their last prefill (Qwen-VL's rope deltas)."""
        self.footprint = Footprint.of(owner.model)
        self._last: tuple[tuple, Prefix] | None = None

    def score(
        self, requests: Sequence[Request], prompts: Sequence[str], targets: Sequence[Sequence[Sequence[int]]]
    ) -> list[list[float]]:
        from mmsoc.core.batching import free_accelerator_memory, is_out_of_memory

        out: list[list[float]] = [[] for _ in requests]
        for group in _groups(requests):
            ids = [self.owner.inputs.prompt_ids(prompts[i]) for i in group]
            try:
                prefix = self._prefix(requests[group[0]], ids)
                scores = self._score_tree(prefix, [row[prefix.text :] for row in ids], [targets[i] for i in group])
                for i, row_scores in zip(group, scores):
                    out[i] = row_scores
            except Exception as err:  # a group that cannot share, or whose prefix does not fit, runs whole
                if not isinstance(err, (CannotShare, OverBudget)) and not is_out_of_memory(err):
                    raise
                self._last = None
                free_accelerator_memory()
                self.owner.work.full_path_videos.append(f"{_media_name(requests[group[0]])}: {err or 'out of memory'}")
                full = self.owner._score_full([requests[i] for i in group], [targets[i] for i in group])
                for i, whole in zip(group, full):
                    out[i] = whole
        return out

    def generate(self, requests: Sequence[Request], settings: GenerationSettings) -> list[str]:
        """Each group's requests decoded together from its prefix, as many at a time as the batch size and
        the memory budget allow."""
        out = [""] * len(requests)
        for group in _groups(requests):
            prompts = self.owner.prompts([requests[i] for i in group])
            ids = [self.owner.inputs.prompt_ids(p) for p in prompts]
            try:
                prefix = self._prefix(requests[group[0]], ids)
            except (CannotShare, OverBudget) as err:
                self.owner.work.full_path_videos.append(f"{_media_name(requests[group[0]])}: {err}")
                texts = self.owner.generate_full([requests[i] for i in group], settings)
                for i, text in zip(group, texts):
                    out[i] = text
                continue
            own = [row[prefix.text :] for row in ids]
            size = self._generation_batch(prefix, max(len(row) for row in own), settings)
            for start in range(0, len(group), size):
                members = group[start : start + size]
                texts = self._generate_from(prefix, own[start : start + size], [requests[i] for i in members], settings)
                for i, text in zip(members, texts):
                    out[i] = text
        return out

    def _generation_batch(self, prefix: Prefix, longest: int, settings: GenerationSettings) -> int:
        """Requests decoded at once: ``--batch-size`` (``auto``: unbounded), and no more than the budget holds
        beside the prefix (each row's own cache of prefix, prompt and answer; at least one)."""
        per_row = (len(prefix.ids) + longest + settings.max_new_tokens) * self.footprint.cached
        fits = max(1, (self.budget() - len(prefix.ids) * self.footprint.cached) // per_row)
        return fits if self.owner.sizer.auto else min(fits, self.owner.sizer.size)

    def _generate_from(
        self, prefix: Prefix, rows: Sequence[Sequence[int]], requests: Sequence[Request], settings: GenerationSettings
    ) -> list[str]:
        """Requests decoded as one batch from the prefix: its cache broadcast to the batch (views, no copy
        until the first new token), each prompt's own tokens after it, padding between them masked out."""
        import torch
        from transformers import DynamicCache

        width, longest, n = len(prefix.ids), max(len(row) for row in rows), len(rows)
        pad, device = int(self.owner.tokenizer.pad_token_id or 0), self.owner.model.device
        gaps = [longest - len(row) for row in rows]
        ids = [prefix.ids + [pad] * gap + list(row) for gap, row in zip(gaps, rows)]
        mask = [[1] * width + [0] * gap + [1] * len(row) for gap, row in zip(gaps, rows)]
        layers = prefix.cache.layers
        cache = DynamicCache([(la.keys.expand(n, -1, -1, -1), la.values.expand(n, -1, -1, -1)) for la in layers])
        self._restore(prefix)
        generated = self.owner.run_generate(
            {"input_ids": torch.tensor(ids, device=device), "attention_mask": torch.tensor(mask, device=device)},
            [r.rng_seed for r in requests],
            settings,
            cache=cache,
        )
        new = generated.shape[1] - width - longest
        written = [width + len(row) + new for row in rows]  # each row's context after its last token
        self.owner.work.count(
            sum(len(row) + new for row in rows), sum(w * (w + 1) // 2 - width * (width + 1) // 2 for w in written), new
        )
        return self.owner.decode(generated[:, width + longest :])

    # --- the prefix and the tree after it ----------------------------------------------------------

    def _prefix(self, request: Request, ids: Sequence[Sequence[int]]) -> Prefix:
        """The group's common prefix run once (or the last one, when it is the same)."""
        import torch

        n = _common(ids)
        key = (media_key(request), tuple(ids[0][:n]))
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        self._last = None  # the previous prefix's cache is let go before this one is made
        batch = self.owner.encode([request], padding_side="right")
        expanded = batch["input_ids"][0].tolist()
        tail = len(ids[0]) - n
        if n == 0 or expanded[len(expanded) - tail :] != list(ids[0][n:]):
            raise CannotShare("the media are not all inside the common prefix")
        width = len(expanded) - tail
        if self.footprint.prefix(width) > self.budget():
            raise OverBudget(f"a prefix of {width} tokens does not fit {self.budget() / GIB:.3g} GiB")
        shape = batch["input_ids"].shape
        inputs = {
            key: value[:, :width] if torch.is_tensor(value) and value.shape[:2] == shape else value
            for key, value in batch.items()
        }
        for module in self.stateful:
            module.rope_deltas = None
        with torch.inference_mode():
            result = self.owner.model(**inputs, use_cache=True, logits_to_keep=1)
        prefix = Prefix(expanded[:width], n, result.cache, [m.rope_deltas for m in self.stateful])
        work = self.owner.work
        work.prefix_passes += 1
        work.count(width, width * (width + 1) // 2)
        work.frames_encoded += self.owner.inputs.frames_of([request])
        self._last = (key, prefix)
        return prefix

    def budget(self) -> int:
        """Bytes the shared path may use: ``--prefix-memory``, else what is free on the model's device."""
        import psutil
        import torch

        if self.owner.options.prefix_memory is not None:
            return int(self.owner.options.prefix_memory * GIB)
        device = self.owner.model.device
        if device.type == "cuda":
            return int(torch.cuda.mem_get_info(device)[0])
        return int(psutil.virtual_memory().available)

    def _restore(self, prefix: Prefix) -> None:
        for module, value in zip(self.stateful, prefix.rope_deltas):
            module.rope_deltas = value

    def _score_tree(
        self, prefix: Prefix, own: Sequence[Sequence[int]], targets: Sequence[Sequence[Sequence[int]]]
    ) -> list[list[float]]:
        """Every option row of the group from the prefix: the trie of their own tokens run chunk by chunk,
        each row's target tokens read off the log-probabilities of the nodes before them."""
        trie, rows = Trie(), []
        for r, (prompt, options) in enumerate(zip(own, targets)):
            for k, target in enumerate(options):
                nodes = trie.path([*prompt, *target[:-1]])
                queries = nodes[len(prompt) - 1 : len(prompt) - 1 + len(target)]
                rows.append(Row(r, k, queries, list(target)))
        wanted: dict[int, set[int]] = {}
        for row in rows:
            for node, token in zip(row.queries, row.targets):
                wanted.setdefault(node, set()).add(token)
        logprobs: dict[tuple[int, int], float] = {}
        done = 0
        try:
            for end in self._chunks(prefix, rows):
                logprobs.update(self._run_nodes(prefix, trie, done, end, wanted))
                done = end
        finally:
            _crop(prefix.cache, len(prefix.ids))
        out: list[list[float]] = [[0.0] * len(options) for options in targets]
        for row in rows:
            out[row.request][row.option] = sum(logprobs[q, t] for q, t in zip(row.queries, row.targets))
        return out

    def _chunks(self, prefix: Prefix, rows: Sequence[Row]) -> list[int]:
        """Where each pass ends (an exclusive node index): the new nodes of at most ``--batch-size`` requests'
        rows, and only as many as fit the budget beside the cache (always at least one row's)."""
        sizer = self.owner.sizer
        limit = None if sizer.auto else sizer.size
        budget = self.budget() - len(prefix.ids) * self.footprint.cached
        ends: list[int] = []
        start = end = 0
        taken: set[int] = set()
        for row in rows:
            after = max(end, row.last + 1)
            if after == end:
                continue  # nothing of its own left to run
            context = len(prefix.ids) + after
            need = self.footprint.chunk(after - start, context, after - start) + start * self.footprint.cached
            full = limit is not None and row.request not in taken and len(taken) >= limit
            if taken and (full or need > budget):
                ends.append(end)
                start, taken = end, set()
            end = after
            taken.add(row.request)
        if end > start:
            ends.append(end)
        return ends

    def _run_nodes(
        self, prefix: Prefix, trie: Trie, start: int, end: int, wanted: dict[int, set[int]]
    ) -> dict[tuple[int, int], float]:
        """Nodes ``start:end`` in one pass (their ancestors already in the cache); the log-probability of
        every wanted token after each of them."""
        import torch

        model, width = self.owner.model, len(prefix.ids)
        device, nodes = model.device, range(start, end)
        mask = torch.full((end - start, width + end), torch.finfo(model.dtype).min, dtype=model.dtype)
        mask[:, :width] = 0
        for i, node in enumerate(nodes):
            mask[i, [width + a for a in trie.lineage(node)]] = 0
        positions = torch.tensor([width + trie.depths[n] for n in nodes], device=device)[None]
        self._restore(prefix)
        for delta in filter(lambda d: d is not None, prefix.rope_deltas):  # multimodal rotary positions
            positions = positions + delta  # continue from the prefix's offset (Qwen-VL)
            break
        kept = [n for n in nodes if n in wanted]
        with torch.inference_mode():
            logits = model(
                input_ids=torch.tensor([trie.tokens[start:end]], device=device),
                attention_mask=mask[None, None].to(device),
                position_ids=positions,
                cache=prefix.cache,
                use_cache=True,
                logits_to_keep=torch.tensor([n - start for n in kept], device=device),
            ).logits
        logprobs = torch.log_softmax(logits[0].float(), dim=-1)
        depths = [trie.depths[n] for n in nodes]
        self.owner.work.count(end - start, sum(width + d + 1 for d in depths))
        return {(n, t): float(logprobs[j, t].double()) for j, n in enumerate(kept) for t in wanted[n]}


def _crop(cache: Any, length: int) -> None:
    """The cache back to its first ``length`` tokens."""
    extra = cache.get_seq_length() - length
    if extra > 0:
        cache.crop(-extra)


def _media_name(request: Request) -> str:
    return ", ".join(str(part[1]) for part in media_key(request)) or "no media"


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
