"""How a request's parts become the model's prompt string, and which answer tokens are scored after it.

The prompt format is chosen in this order:

1. ``--chat-template FILE``: that Jinja template, rendered with the processor;
2. the checkpoint's own chat template (the processor's, else its tokenizer's);
3. the family's fixed format, for checkpoints that ship none (BLIP-2: ``Question: {prompt} Answer:``,
   InstructBLIP: the plain prompt, LLaVA-1.5: ``USER: <image>\\n{prompt} ASSISTANT:``).

A chat template renders one user turn holding the parts in order, plus the generation prompt.

An answer is scored in context, as lm-evaluation-harness does: the prompt, a delimiter (a space when
the prompt does not end in whitespace) and the answer are tokenised together, and the scored tokens are
those past the prompt's own tokens. Fine-tuning targets follow the same rule.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmsoc.core.names import cannot_load
from mmsoc.models.base import Part
from mmsoc.models.families import FIXED_FORMATS, Family, chat_content, fixed_prompt

DELIMITER = " "
"""Put between a prompt that does not end in whitespace and its answer (lm-evaluation-harness's target delimiter)."""


@dataclass(frozen=True)
class PromptFormat:
    """The prompt format of one run: where it comes from and, for a chat template, its text."""

    source: str
    """``file``, ``checkpoint`` or ``family``."""
    family: Family
    template: str | None = None
    path: str | None = None

    def describe(self) -> dict[str, Any]:
        """What the run's config.json records."""
        out: dict[str, Any] = {"source": self.source, "family": self.family}
        if self.template is not None:
            out["template_sha256"] = hashlib.sha256(self.template.encode()).hexdigest()
        if self.path is not None:
            out["path"] = self.path
        return out

    def render(self, processor: Any, parts: Sequence[Part]) -> str:
        """The prompt string for ``parts``."""
        if self.template is None:
            return fixed_prompt(self.family, parts)
        conversation = [{"role": "user", "content": chat_content(parts)}]
        return str(
            processor.apply_chat_template(
                conversation, chat_template=self.template, add_generation_prompt=True, tokenize=False
            )
        )


def checkpoint_template(processor: Any) -> str | None:
    """The chat template a checkpoint ships (its processor's, else its tokenizer's), if any."""
    for owner in (processor, getattr(processor, "tokenizer", None)):
        template = getattr(owner, "chat_template", None)
        if isinstance(template, dict):
            template = template.get("default")
        if isinstance(template, str) and template.strip():
            return template
    return None


def prompt_format(family: Family, processor: Any, chat_template: str | None = None) -> PromptFormat:
    """The format for a loaded processor: ``chat_template`` (a file), the checkpoint's, else the family's."""
    if chat_template is not None:
        try:
            text = Path(chat_template).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise OSError(f"--chat-template {chat_template}: cannot read the file ({err})") from None
        return PromptFormat("file", family, text, str(chat_template))
    template = checkpoint_template(processor)
    if template is not None:
        return PromptFormat("checkpoint", family, template)
    if family not in FIXED_FORMATS:
        raise ValueError(
            "the checkpoint ships no chat template and its family has no fixed format: give --chat-template FILE"
        )
    return PromptFormat("family", family)


def answer_tokens(tokenizer: Any, prompt: str, answer: str, encoder_decoder: bool = False) -> list[int]:
    """The token ids scored (or trained) for ``answer`` after ``prompt``.

    Decoder-only models: ``prompt + delimiter + answer`` tokenised whole, minus the prompt's own tokens.
    Encoder-decoder models: the decoder's target, the answer tokenised alone.
    """
    if encoder_decoder:
        return list(tokenizer(answer, add_special_tokens=False)["input_ids"])
    delimiter = "" if not prompt or prompt[-1].isspace() else DELIMITER
    context = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    whole = tokenizer(prompt + delimiter + answer, add_special_tokens=False)["input_ids"]
    return list(whole[len(context) :])


def format_prompt(family: Family, processor: Any, parts: Sequence[Part], chat_template: str | None = None) -> str:
    """The prompt string for ``parts`` in the format :func:`prompt_format` chooses."""
    return prompt_format(family, processor, chat_template).render(processor, parts)


def describe_format(model_id_or_dir: str, chat_template: str | None = None) -> dict[str, Any]:
    """The prompt format a checkpoint gets, from its config and processor files alone (no weights)."""
    from transformers import AutoConfig, AutoProcessor

    from mmsoc.models.families import detect_family

    try:
        config = AutoConfig.from_pretrained(model_id_or_dir)
        processor = AutoProcessor.from_pretrained(model_id_or_dir)
    except (OSError, ValueError) as err:
        raise cannot_load(model_id_or_dir, err) from err
    return prompt_format(detect_family(config), processor, chat_template).describe()
