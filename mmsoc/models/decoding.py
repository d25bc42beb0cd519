"""The decoding settings a run uses, built explicitly so that what ran is what the run records.

``neutral`` (the default) starts from transformers' library defaults, not from the checkpoint's
``generation_config.json`` (whose ``repetition_penalty``, ``suppress_tokens``, ``no_repeat_ngram_size`` ...
would otherwise apply silently, even under a passed config: :func:`only`); only its stop and padding
tokens are kept. ``checkpoint`` starts from the
checkpoint's file. Either way generation runs greedily at the library level and sampling, when asked,
is :class:`~mmsoc.models.sampling.PerRowSampler` (temperature and top-p, seeded per request).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mmsoc.models.base import GenerationSettings

GENERATION_CONFIGS = ("neutral", "checkpoint")
KEPT = ("eos_token_id", "pad_token_id", "bos_token_id", "decoder_start_token_id")
"""Token ids taken from the checkpoint in ``neutral`` mode (where to stop, how to pad)."""
RECORDED = (
    "top_k",
    "repetition_penalty",
    "no_repeat_ngram_size",
    "length_penalty",
    "num_beams",
    "min_new_tokens",
    "bad_words_ids",
    "suppress_tokens",
)
"""Settings that change what is generated, recorded beside the run's own."""


def generation_config(checkpoint: Any, settings: GenerationSettings, mode: str = "neutral", pad_id: Any = None) -> Any:
    """The ``GenerationConfig`` for one call: ``checkpoint`` is the model's own generation config."""
    from transformers import GenerationConfig

    if mode not in GENERATION_CONFIGS:
        raise ValueError(f"--generation-config {mode!r}: choose {' or '.join(GENERATION_CONFIGS)}")
    if mode == "checkpoint":
        config = GenerationConfig.from_dict(checkpoint.to_dict())
    else:
        config = GenerationConfig(**{key: getattr(checkpoint, key, None) for key in KEPT})
    config.do_sample = False  # sampling, when asked, is the per-row sampler's
    config.temperature, config.top_p, config.top_k = None, None, None
    config.num_beams = 1 if mode == "neutral" else config.num_beams
    config.max_new_tokens = settings.max_new_tokens
    config.max_length = None
    if pad_id is not None:
        config.pad_token_id = pad_id
    return config


@contextmanager
def only(model: Any, config: Any) -> Iterator[None]:
    """``model`` generating with ``config`` alone: transformers fills every setting a passed config leaves
    unset from the model's own generation config, so that one is swapped for ``config`` meanwhile."""
    owner = model.get_base_model() if hasattr(model, "get_base_model") else model  # a peft model's base
    saved = owner.generation_config
    owner.generation_config = config
    try:
        yield
    finally:
        owner.generation_config = saved


def effective(config: Any, settings: GenerationSettings) -> dict[str, Any]:
    """Every setting that shapes the output, as the run's config.json records it."""
    stops = config.eos_token_id
    record = {
        **settings.to_json(),
        **{key: getattr(config, key, None) for key in RECORDED},
        "stop_token_ids": [stops] if isinstance(stops, int) else list(stops or []),
    }
    record["num_beams"] = record["num_beams"] or 1
    record["repetition_penalty"] = record["repetition_penalty"] or 1.0
    return record


def describe(model_id_or_dir: str, settings: GenerationSettings, mode: str = "neutral") -> dict[str, Any]:
    """The effective settings from a checkpoint's files alone (no weights), for a run's identity."""
    from transformers import GenerationConfig

    try:
        checkpoint = GenerationConfig.from_pretrained(model_id_or_dir)
    except (OSError, ValueError):  # no generation_config.json: the library defaults
        checkpoint = GenerationConfig()
    return {"generation_config": mode, **effective(generation_config(checkpoint, settings, mode), settings)}
