"""Any transformers text language model, decoder-only or encoder-decoder (``--model lm:ID_OR_DIR``).

For the text suites (SocKET, SuperTweetEval) and any text-only task. The request's text parts, joined by
newlines, are the model's input as they are: no chat template, as SocKET's ``predict.py`` feeds its
prompts to a ``text-generation`` or ``text2text-generation`` pipeline. A causal LM (``AutoModelForCausalLM``)
reads left-padded batches and its continuation is returned; a config with ``is_encoder_decoder``
(T5, BART) loads ``AutoModelForSeq2SeqLM`` and its output is returned. Greedy decoding, or nucleus
sampling with each row drawn from its own generator seeded by its request (:class:`PerRowSampler`), so
answers never depend on the batch. Option scoring sums each option's token log-probabilities after the
prompt (:func:`continuation_logliks`, right padding). A prompt that does not fit the model's positions
with the tokens to generate is refused (ValueError naming the item; the evaluation loop records it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mmsoc.models.base import GenerationSettings, OptionScores, Request, Text
from mmsoc.models.registry import ModelEntry, ModelOptions

DTYPES = ("float32", "float16", "bfloat16")


def load_text_lm(
    model_id_or_dir: str, dtype: str = "float32", device: str = "auto", adapter: str | None = None
) -> tuple[Any, Any, bool]:
    """(model, tokenizer, is encoder-decoder) from a hub id or folder, optionally with a peft adapter."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

    from mmsoc.core.distributed import resolve_device

    if dtype not in DTYPES and dtype != "auto":
        raise ValueError(f"unknown dtype {dtype!r}; choose one of auto, {', '.join(DTYPES)}")
    try:
        config = AutoConfig.from_pretrained(model_id_or_dir)
        seq2seq = bool(getattr(config, "is_encoder_decoder", False))
        loader = AutoModelForSeq2SeqLM if seq2seq else AutoModelForCausalLM
        tokenizer = AutoTokenizer.from_pretrained(model_id_or_dir)
        model: Any = loader.from_pretrained(model_id_or_dir, dtype="auto" if dtype == "auto" else getattr(torch, dtype))
    except (OSError, ValueError) as err:
        raise OSError(
            f"cannot load text model {model_id_or_dir!r} (give a local folder, or a hub id the machine can "
            f"reach or has cached): {err}"
        ) from err
    if adapter:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, adapter)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model.to(resolve_device(device)).eval(), tokenizer, seq2seq


class TextLM:
    """Batched generation and option scoring of a text LM; results identical for any batch size."""

    modalities = frozenset({"text"})

    def __init__(self, model_id_or_dir: str, dtype: str = "float32", device: str = "auto", adapter: str | None = None):
        self.name = model_id_or_dir
        self.model, self.tokenizer, self.seq2seq = load_text_lm(model_id_or_dir, dtype, device, adapter)
        config = self.model.config
        self.max_positions = None if self.seq2seq else getattr(config, "max_position_embeddings", None)

    def _prompts(self, requests: Sequence[Request]) -> list[str]:
        for request in requests:
            if any(not isinstance(part, Text) for part in request.parts):
                raise ValueError(
                    f"request {request.task!r} item {request.id!r} carries media; lm:{self.name} reads text only"
                )
        return [request.prompt for request in requests]

    def _encode(self, requests: Sequence[Request], padding_side: str, room: int = 0) -> Any:
        batch = self.tokenizer(self._prompts(requests), return_tensors="pt", padding=True, padding_side=padding_side)
        if self.max_positions is not None:
            lengths = batch["attention_mask"].sum(1).tolist()
            for request, length in zip(requests, lengths):
                if length + room > self.max_positions:
                    raise ValueError(
                        f"request {request.task!r} item {request.id!r}: {length} prompt tokens and "
                        f"{room} more do not fit the model's {self.max_positions} positions"
                    )
        return batch.to(self.model.device)

    def generate(self, requests: Sequence[Request], settings: GenerationSettings) -> list[str]:
        """One response per request: the continuation (causal) or the output (encoder-decoder), stripped."""
        import torch

        from mmsoc.models.sampling import PerRowSampler

        if not requests:
            return []
        batch = self._encode(requests, "right" if self.seq2seq else "left", settings.max_new_tokens)
        processors = (
            []
            if settings.greedy
            else [PerRowSampler([r.rng_seed for r in requests], settings.temperature, settings.top_p)]
        )
        with torch.inference_mode():
            out = self.model.generate(
                **batch,
                max_new_tokens=settings.max_new_tokens,
                do_sample=False,
                logits_processor=processors,
                pad_token_id=self.tokenizer.pad_token_id,
            )
        if not self.seq2seq:
            out = out[:, batch["input_ids"].shape[1] :]
        return [text.strip() for text in self.tokenizer.batch_decode(out, skip_special_tokens=True)]

    def score_options(self, requests: Sequence[Request], options: Sequence[Sequence[str]]) -> list[OptionScores]:
        """Sum of the log-probabilities of each option's tokens after the prompt."""
        from mmsoc.models.loglik import continuation_logliks

        rows = [(request, option) for request, opts in zip(requests, options) for option in opts]
        if not rows:
            return [OptionScores((), ()) for _ in requests]
        targets = [self.tokenizer(option, add_special_tokens=False)["input_ids"] for _, option in rows]
        batch = self._encode([request for request, _ in rows], "right", max(map(len, targets)))
        logliks = continuation_logliks(
            self.model, batch, targets, self.tokenizer.pad_token_id, encoder_decoder=self.seq2seq
        )
        out, k = [], 0
        for opts in options:
            out.append(OptionScores(tuple(logliks[k : k + len(opts)]), tuple(len(o) for o in opts)))
            k += len(opts)
        return out


def build(arg: str, options: ModelOptions) -> TextLM:
    if not arg:
        raise ValueError("name the model: --model lm:ID_OR_DIR (a transformers causal or seq2seq LM)")
    return TextLM(arg, dtype=options.dtype, device=options.device, adapter=options.adapter)


MODEL = ModelEntry(
    "lm",
    build,
    frozenset({"text"}),
    "any transformers text LM, causal or seq2seq (text suites; prompts as written, no chat template)",
    adapters=True,
    usage="lm:ID",
)
