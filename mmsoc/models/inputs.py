"""The input side of an in-process model: prompts, media, token counts; everything but the weights.

:class:`ModelInputs` holds a checkpoint's processor, its prompt format (``mmsoc.models.prompting``),
how its family takes media (``mmsoc.models.recipes``), the media store and its context budget. The
``hf`` backend builds one beside the weights; fine-tuning builds one from the files alone
(:meth:`ModelInputs.from_files`) to fit its prompts before any weight is loaded. It counts tokens
(``mmsoc.models.budget.Counts``) and says which tokens an answer is scored or trained on.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from mmsoc.core.names import cannot_load
from mmsoc.models.base import GenerationSettings, Request
from mmsoc.models.families import Family
from mmsoc.models.registry import ModelOptions


class ModelInputs:
    """Prompts and processor inputs of one checkpoint; thread-safe (``prepare`` runs on another thread)."""

    def __init__(self, config: Any, processor: Any, family: Family, options: ModelOptions, encoder_decoder: bool):
        from mmsoc.models.budget import context_length
        from mmsoc.models.processor_inputs import qformer_limit
        from mmsoc.models.prompting import prompt_format
        from mmsoc.models.recipes import recipe_for

        self.processor, self.family, self.encoder_decoder = processor, family, encoder_decoder
        self.tokenizer = processor.tokenizer
        self.recipe = recipe_for(config, processor, options.media.video_as)
        self.media = options.media.store(self.recipe.num_frames)
        self.format = prompt_format(family, processor, options.chat_template)
        self.context_length = options.max_context or context_length(config, self.tokenizer)
        self.qformer_limit = qformer_limit(config)
        self._expansion: dict[tuple, int] = {}
        self._lock = threading.Lock()
        """The processor's tokenizer is not safe for concurrent use."""

    @classmethod
    def from_files(cls, model_id_or_dir: str, options: ModelOptions) -> ModelInputs:
        """From a checkpoint's config and processor files alone (no weights)."""
        from transformers import AutoConfig, AutoProcessor

        from mmsoc.models.families import detect_family

        try:
            config = AutoConfig.from_pretrained(model_id_or_dir)
            processor = AutoProcessor.from_pretrained(model_id_or_dir)
        except (OSError, ValueError) as err:
            raise cannot_load(model_id_or_dir, err) from err
        processor.tokenizer.padding_side = "left"
        text = config.get_text_config() if hasattr(config, "get_text_config") else config
        seq2seq = bool(getattr(config, "is_encoder_decoder", False) or getattr(text, "is_encoder_decoder", False))
        return cls(config, processor, detect_family(config), options, seq2seq)

    def prompts(self, requests: Sequence[Request]) -> list[str]:
        """The exact prompt text given to the processor for each request."""
        from mmsoc.models.processor_inputs import prepare

        return [self.format.render(self.processor, prepare(r, self.recipe, self.media, False).parts) for r in requests]

    def answer_tokens(self, prompt: str, answer: str) -> list[int]:
        """The token ids scored (or trained) for ``answer`` after ``prompt``, tokenised in context."""
        from mmsoc.models.prompting import answer_tokens

        with self._lock:
            return answer_tokens(self.tokenizer, prompt, answer, self.encoder_decoder)

    def text_tokens(self, text: str) -> int:
        """Tokens of a piece of text alone."""
        with self._lock:
            return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def prompt_ids(self, prompt: str) -> list[int]:
        """The prompt's tokens before the processor inserts media tokens (special tokens as it adds them)."""
        with self._lock:
            return list(self.tokenizer(prompt)["input_ids"])

    def frames_sampled(self, path: str) -> int:
        """Frames sampled from a video (before a budget drops some)."""
        return len(self.media.clip(path).frames)

    def frames_of(self, requests: Sequence[Request]) -> int:
        """Images and video frames the vision tower encodes for these requests."""
        from mmsoc.models.processor_inputs import prepare

        return sum(prepare(r, self.recipe, self.media).frames for r in requests)

    def prompt_tokens(self, request: Request) -> int:
        """Tokens of the request as the model receives it: its text plus the media tokens the processor
        inserts (measured once per distinct media set)."""
        text = len(self.prompt_ids(self.prompts([request])[0]))
        key = _expansion_key(request)
        if key not in self._expansion:
            self._expansion[key] = self.prepare([request])["input_ids"].shape[1] - text
        return text + self._expansion[key]

    def fits(self, request: Request, reserve: int) -> tuple[bool, int]:
        """(whether the request and ``reserve`` more tokens fit the context, its prompt tokens)."""
        count = self.prompt_tokens(request)
        return self.context_length is None or count + reserve <= self.context_length, count

    def prepare(self, requests: Sequence[Request], padding_side: str = "left") -> Any:
        """Processor inputs for a batch (media as the family takes them), on the CPU."""
        from mmsoc.models.processor_inputs import processor_inputs

        with self._lock:
            return processor_inputs(
                self.processor, self.format, self.recipe, self.media, requests, padding_side, self.qformer_limit
            )

    def decode(self, ids: Any) -> list[str]:
        with self._lock:
            return list(self.processor.batch_decode(ids, skip_special_tokens=True))


def _expansion_key(request: Request) -> tuple:
    """What the processor's media tokens depend on: each image's size (read from its header), each video's
    file and frames kept, each audio file."""
    from PIL import Image as PILImage

    from mmsoc.models.base import Audio, Image, Video

    key: list[tuple] = []
    for part in request.parts:
        if isinstance(part, Image):
            with PILImage.open(part.path) as image:
                key.append(("image", image.size))
        elif isinstance(part, (Video, Audio)):
            key.append((type(part).__name__, part.path, getattr(part, "frames", None)))
    return tuple(key)


def describe_model(
    model: str,
    settings: GenerationSettings | None,
    chat_template: str | None,
    generation_config: str = "neutral",
    api_base: str | None = None,
) -> dict[str, Any]:
    """What a run records of how a ``--model`` is prompted and decodes, from its files alone (no weights):
    ``prompt_format`` for an in-process model, ``decoding`` when it writes (``settings``), ``api_base`` for a
    model on a server (another server is another run)."""
    from mmsoc.models.registry import BACKENDS, DEFAULT_BACKEND, resolve

    entry, arg = resolve(model)
    local = entry is BACKENDS.get(DEFAULT_BACKEND)
    out: dict[str, Any] = {"api_base": api_base.rstrip("/")} if entry.remote and api_base else {}
    if local:
        from mmsoc.models.prompting import describe_format

        out["prompt_format"] = describe_format(arg, chat_template)
    if settings is not None:
        from mmsoc.models.decoding import describe

        out["decoding"] = describe(arg, settings, generation_config) if local else settings.to_json()
    return out
