"""Any transformers image-text-to-text model (LLaVA, BLIP-2, InstructBLIP, ...) behind the model contract.

The prompt is the checkpoint's own chat template (or ``--chat-template``, or the family's fixed format:
``mmsoc.models.prompting``); answers are scored in context; decoding uses exactly the run's settings
(``mmsoc.models.decoding``); requests are counted against the language model's context
(``mmsoc.models.budget``); requests that share their media are scored and generated from one shared
prefix where the family allows it (``mmsoc.models.prefix``).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from mmsoc.models.base import GenerationSettings, OptionScores, Request
from mmsoc.models.loading import is_encoder_decoder, load_hf_model
from mmsoc.models.registry import ModelEntry, ModelOptions


class HFModel:
    """Batched generation with left padding and per-request sampling seeds; option scoring by a
    forward pass over prompt + option (right padded, so positions never depend on the batch), or from
    a shared prefix (``prefix_cache``)."""

    def __init__(self, model_id_or_dir: str, options: ModelOptions | None = None, **fields: Any):
        from mmsoc.models.budget import context_length
        from mmsoc.models.prefix import SharedPrefix, Work, sharing
        from mmsoc.models.prompting import prompt_format
        from mmsoc.models.recipes import recipe_for
        from mmsoc.models.video import qformer_limit

        options = replace(options or ModelOptions(), **fields)
        self.name, self.options = model_id_or_dir, options
        self.model, self.processor, self.family = load_hf_model(
            model_id_or_dir, options.dtype, options.device, options.adapter
        )
        self.tokenizer = self.processor.tokenizer
        self.recipe = recipe_for(self.model.config, self.processor, options.media.video_as)
        self.modalities = self.recipe.modalities
        self.media = options.media.store(self.recipe.num_frames)
        self.encoder_decoder = is_encoder_decoder(self.model)
        self.format = prompt_format(self.family, self.processor, options.chat_template)
        self.context_length = options.max_context or context_length(self.model.config, self.tokenizer)
        self.qformer_limit = qformer_limit(self.model.config)
        self.work = Work()
        self.path, self.why = sharing(self.model, self.encoder_decoder, options.prefix_cache)
        self.prefix = SharedPrefix(self) if self.path == "shared-prefix" else None
        self._expansion: dict[tuple, int] = {}
        self._tokenizer_lock = threading.Lock()
        """The processor's tokenizer is not safe for concurrent use: ``prepare`` runs on another thread."""

    # --- what the model is given -------------------------------------------------------------------

    def prompts(self, requests: Sequence[Request]) -> list[str]:
        """The exact prompt text given to the processor for each request."""
        from mmsoc.models.video import prepare

        return [self.format.render(self.processor, prepare(r, self.recipe, self.media).parts) for r in requests]

    def answer_tokens(self, prompt: str, answer: str) -> list[int]:
        """The token ids scored for ``answer`` after ``prompt`` (tokenised in context)."""
        from mmsoc.models.prompting import answer_tokens

        with self._tokenizer_lock:
            return answer_tokens(self.tokenizer, prompt, answer, self.encoder_decoder)

    def text_tokens(self, text: str) -> int:
        with self._tokenizer_lock:
            return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def prompt_ids(self, prompt: str) -> list[int]:
        """The prompt's tokens before the processor inserts media tokens (special tokens as it adds them)."""
        with self._tokenizer_lock:
            return list(self.tokenizer(prompt)["input_ids"])

    def frames_sampled(self, path: str) -> int:
        """Frames this model samples from a video (before any budget drops some)."""
        return len(self.media.clip(path).frames)

    def prompt_tokens(self, request: Request) -> int:
        """Tokens of the request as the model receives it: its text plus the media tokens the processor
        inserts (measured once per distinct media set)."""
        from mmsoc.models.prefix import media_key

        prompt = self.prompts([request])[0]
        key = media_key(request)
        if key not in self._expansion:
            full = self.prepare([request])["input_ids"].shape[1]
            self._expansion[key] = full - len(self.prompt_ids(prompt))
        return len(self.prompt_ids(prompt)) + self._expansion[key]

    def prepare(self, requests: Sequence[Request], padding_side: str = "left") -> Any:
        """Processor inputs for a batch (media as the family takes them), on the CPU; thread-safe."""
        from mmsoc.models.video import processor_inputs

        with self._tokenizer_lock:
            return processor_inputs(
                self.processor, self.format, self.recipe, self.media, requests, padding_side, self.qformer_limit
            )

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
        if self.prefix is not None:
            return [text.strip() for text in self.prefix.generate(requests, settings)]
        return self.generate_full(requests, settings, prepared)

    def generate_full(
        self, requests: Sequence[Request], settings: GenerationSettings, prepared: Any = None
    ) -> list[str]:
        """Generation with each prompt run whole, the batch left padded."""
        batch = self._on_device(prepared if prepared is not None else self.prepare(requests))
        out = self.run_generate(batch, [r.rng_seed for r in requests], settings)
        self.work.count_full(batch, self.frames_of(requests))
        if not self.encoder_decoder:
            out = out[:, batch["input_ids"].shape[1] :]
        return [text.strip() for text in self.decode(out)]

    def run_generate(self, inputs: Any, seeds: Sequence[int], settings: GenerationSettings, **extra: Any) -> Any:
        """``model.generate`` with the run's decoding settings and a per-row sampler."""
        import torch

        from mmsoc.models.sampling import PerRowSampler

        processors = [] if settings.greedy else [PerRowSampler(seeds, settings.temperature, settings.top_p)]
        with torch.inference_mode():
            return self.model.generate(
                **inputs, generation_config=self.generation_config(settings), logits_processor=processors, **extra
            )

    def decode(self, ids: Any) -> list[str]:
        with self._tokenizer_lock:
            return list(self.processor.batch_decode(ids, skip_special_tokens=True))

    def score_options(self, requests: Sequence[Request], options: Sequence[Sequence[str]]) -> list[OptionScores]:
        """Sum of the log-probabilities of each option's tokens after the prompt (in context)."""
        prompts = self.prompts(requests)
        targets = [[self.answer_tokens(prompt, option) for option in opts] for prompt, opts in zip(prompts, options)]
        if self.prefix is not None:
            logliks = self.prefix.score(requests, prompts, targets)
        else:
            logliks = self._score_full(requests, targets)
        self.work.rows_scored += sum(len(opts) for opts in options)
        return [OptionScores(tuple(scores), tuple(len(o) for o in opts)) for scores, opts in zip(logliks, options)]

    def _score_full(self, requests: Sequence[Request], targets: Sequence[Sequence[Sequence[int]]]) -> list[list[float]]:
        """Each (request, option) row through the whole model, ``options.batch_size`` rows at a time."""
        from mmsoc.models.loglik import continuation_logliks

        rows = [(request, target) for request, ts in zip(requests, targets) for target in ts]
        scores: list[float] = []
        size = max(1, self.options.batch_size)
        for start in range(0, len(rows), size):
            chunk = rows[start : start + size]
            batch = self.encode([request for request, _ in chunk], padding_side="right")
            scores += continuation_logliks(
                self.model,
                batch,
                [t for _, t in chunk],
                self.tokenizer.pad_token_id,
                encoder_decoder=self.encoder_decoder,
            )
            self.work.count_full(batch, self.frames_of([request for request, _ in chunk]), [t for _, t in chunk])
        out, k = [], 0
        for ts in targets:
            out.append(scores[k : k + len(ts)])
            k += len(ts)
        return out

    def frames_of(self, requests: Sequence[Request]) -> int:
        """Images and video frames the vision tower encodes for these requests."""
        from mmsoc.models.video import prepare

        return sum(prepare(r, self.recipe, self.media).frames for r in requests)

    def runtime(self) -> dict[str, Any]:
        """Which scoring path ran and why, and the work counters (for runtime.json)."""
        return {"path": self.path, "why": self.why, **self.work.to_json()}


def build(arg: str, options: ModelOptions) -> HFModel:
    return HFModel(arg, options)


MODEL = ModelEntry(
    "hf",
    "mmsoc.models.backends.hf:build",
    frozenset({"text", "image"}),
    "any transformers image-text-to-text model (or video / audio multimodal LM): a hub id or a local folder",
    adapters=True,
)
