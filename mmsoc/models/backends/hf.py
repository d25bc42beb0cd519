"""Any transformers image-text-to-text model (LLaVA, BLIP-2, InstructBLIP, ...) behind the model contract.

The prompt is the checkpoint's own chat template (or ``--chat-template``, or the family's fixed format:
``mmsoc.models.prompting``); answers are scored in context; decoding uses exactly the run's settings
(``mmsoc.models.decoding``); requests are counted against the language model's context
(``mmsoc.models.budget``); requests that share their media are scored and generated from one shared
prefix where the family allows it (``mmsoc.models.prefix``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from mmsoc.core.batching import BatchSizer
from mmsoc.models.base import GenerationSettings, OptionScores, Request
from mmsoc.models.loading import is_encoder_decoder, load_hf_model
from mmsoc.models.registry import ModelEntry, ModelOptions


class HFModel:
    """Batched generation with left padding and per-request sampling seeds; option scoring by a
    forward pass over prompt + option (right padded, so positions never depend on the batch), or from
    a shared prefix (``prefix_cache``)."""

    def __init__(self, model_id_or_dir: str, options: ModelOptions | None = None, **fields: Any):
        from mmsoc.models.inputs import ModelInputs
        from mmsoc.models.prefix import SharedPrefix, Work, sharing

        options = replace(options or ModelOptions(), **fields)
        self.name, self.options = model_id_or_dir, options
        loaded = load_hf_model(
            model_id_or_dir,
            options.dtype,
            options.device,
            options.adapter,
            device_map=options.device_map,
            attn_implementation=options.attn_implementation,
        )
        self.model, self.processor, self.family, self.load_info = (
            loaded.model,
            loaded.processor,
            loaded.family,
            loaded.info,
        )
        self.sizer = BatchSizer(options.batch_size)
        self.encoder_decoder = is_encoder_decoder(self.model)
        self.inputs = ModelInputs(self.model.config, self.processor, self.family, options, self.encoder_decoder)
        self.tokenizer = self.processor.tokenizer
        self.modalities = self.inputs.recipe.modalities
        self.work = Work()
        self.path, self.why = sharing(self.model, self.encoder_decoder, options.prefix_cache)
        self.prefix = SharedPrefix(self) if self.path == "shared-prefix" else None

    def prompts(self, requests: Sequence[Request]) -> list[str]:
        """The exact prompt text given to the processor for each request."""
        return self.inputs.prompts(requests)

    def answer_tokens(self, prompt: str, answer: str) -> list[int]:
        """The token ids scored for ``answer`` after ``prompt`` (tokenised in context)."""
        return self.inputs.answer_tokens(prompt, answer)

    def prepare(self, requests: Sequence[Request], padding_side: str = "left") -> Any:
        """Processor inputs for a batch (media as the family takes them), on the CPU; thread-safe."""
        return self.inputs.prepare(requests, padding_side)

    def encode(self, requests: Sequence[Request], padding_side: str = "left") -> Any:
        """Processor inputs for a batch, on the model's device and dtype."""
        return self._on_device(self.prepare(requests, padding_side))

    def _on_device(self, batch: Any) -> Any:
        return batch.to(self.model.device, dtype=self.model.dtype)

    # --- generation and scoring --------------------------------------------------------------------

    def generation_config(self, settings: GenerationSettings) -> Any:
        from mmsoc.models.decoding import generation_config

        return generation_config(
            self.model.generation_config, settings, self.options.generation_config, self.tokenizer.pad_token_id
        )

    def generate(self, requests: Sequence[Request], settings: GenerationSettings, prepared: Any = None) -> list[str]:
        """One response per request; identical whatever the batch size. ``prepared``: ``prepare(requests)``."""
        if not requests:
            return []
        if self.prefix is None:
            return self.generate_full(requests, settings, prepared)
        from mmsoc.models.prefix import media_key

        prompts = self.prompts(requests)  # identical requests (and seeds, when sampling) written once
        keys = [(media_key(r), p, None if settings.greedy else r.rng_seed) for r, p in zip(requests, prompts)]
        first = {key: i for i, key in reversed(list(enumerate(keys)))}
        unique = sorted(first.values())
        written = dict(zip(unique, self.prefix.generate([requests[i] for i in unique], settings)))
        return [written[first[key]].strip() for key in keys]

    def generate_full(
        self, requests: Sequence[Request], settings: GenerationSettings, prepared: Any = None
    ) -> list[str]:
        """Generation with each prompt run whole, the batch left padded."""
        batch = self._on_device(prepared if prepared is not None else self.prepare(requests))
        out = self.run_generate(batch, [r.rng_seed for r in requests], settings)
        if not self.encoder_decoder:
            out = out[:, batch["input_ids"].shape[1] :]
        self.work.count_full(batch, self.inputs.frames_of(requests), written=out.shape[1])
        return [text.strip() for text in self.decode(out)]

    def run_generate(self, inputs: Any, seeds: Sequence[int], settings: GenerationSettings, **extra: Any) -> Any:
        """``model.generate`` with the run's decoding settings and a per-row sampler."""
        import torch

        from mmsoc.models.decoding import only
        from mmsoc.models.sampling import PerRowSampler

        processors = [] if settings.greedy else [PerRowSampler(seeds, settings.temperature, settings.top_p)]
        config = self.generation_config(settings)
        with torch.inference_mode(), only(self.model, config):
            return self.model.generate(**inputs, generation_config=config, logits_processor=processors, **extra)

    def decode(self, ids: Any) -> list[str]:
        return self.inputs.decode(ids)

    def score_options(self, requests: Sequence[Request], options: Sequence[Sequence[str]]) -> list[OptionScores]:
        """Sum of the log-probabilities of each option's tokens after the prompt (in context); identical
        requests (same media, prompt and options) scored once."""
        from mmsoc.models.prefix import media_key

        prompts = self.prompts(requests)
        keys = [(media_key(r), p, tuple(o)) for r, p, o in zip(requests, prompts, options)]
        first = {key: i for i, key in reversed(list(enumerate(keys)))}
        unique = sorted(first.values())
        targets = [[self.answer_tokens(prompts[i], option) for option in options[i]] for i in unique]
        chosen = [requests[i] for i in unique]
        if self.prefix is not None:
            logliks = self.prefix.score(chosen, [prompts[i] for i in unique], targets)
        else:
            logliks = self._score_full(chosen, targets)
        scored = {i: scores for i, scores in zip(unique, logliks)}
        self.work.rows_scored += sum(len(options[i]) for i in unique)
        self.work.rows_answered += sum(len(opts) for opts in options)
        return [
            OptionScores(tuple(scored[first[key]]), tuple(len(o) for o in opts)) for key, opts in zip(keys, options)
        ]

    def _score_full(self, requests: Sequence[Request], targets: Sequence[Sequence[Sequence[int]]]) -> list[list[float]]:
        """Each (request, option) row through the whole model, ``options.batch_size`` rows at a time."""
        rows = [(request, target) for request, ts in zip(requests, targets) for target in ts]
        scores = [s for chunk in self.sizer.batches(rows) for s in self.sizer.run(chunk, self._score_rows)]
        out, k = [], 0
        for ts in targets:
            out.append(scores[k : k + len(ts)])
            k += len(ts)
        return out

    def _score_rows(self, rows: Sequence[tuple[Request, Sequence[int]]]) -> list[float]:
        """One forward pass over (request, answer tokens) rows, right padded."""
        from mmsoc.models.loglik import continuation_logliks

        requests, targets = [request for request, _ in rows], [target for _, target in rows]
        batch = self.encode(requests, padding_side="right")
        scores = continuation_logliks(
            self.model, batch, targets, self.tokenizer.pad_token_id, encoder_decoder=self.encoder_decoder
        )
        self.work.count_full(batch, self.inputs.frames_of(requests), targets)
        return scores

    def runtime(self) -> dict[str, Any]:
        """How the model was loaded, which scoring path ran and why, the batch size asked and the work
        counters, the mean rows per forward pass among them (for runtime.json)."""
        return {
            **self.load_info.to_json(),
            "path": self.path,
            "why": self.why,
            "batch_size": "auto" if self.sizer.auto else self.sizer.size,
            **self.work.to_json(),
        }


def build(arg: str, options: ModelOptions) -> HFModel:
    return HFModel(arg, options)


MODEL = ModelEntry(
    "hf",
    build,
    frozenset({"text", "image"}),
    "any transformers image-text-to-text model (or video / audio multimodal LM), run in this process",
    adapters=True,
    usage="a hub id or a local folder (or hf:ID)",
    checkpoint=True,
)
