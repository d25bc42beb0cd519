"""Per-family prompt formats: the string each model family expects around the task prompt."""

from __future__ import annotations

from typing import Any, Literal

from mmsoc.records import Example
from mmsoc.tasks.table import get_task

Family = Literal["llava", "blip2", "instructblip", "generic"]

_FAMILIES: dict[str, Family] = {"llava": "llava", "blip-2": "blip2", "instructblip": "instructblip"}


def detect_family(config: Any) -> Family:
    """Family from a model config's ``model_type``; anything unknown uses its chat template."""
    return _FAMILIES.get(getattr(config, "model_type", ""), "generic")


def compose_prompt(instruction: str, text: str = "") -> str:
    """The task instruction preceded by the post's text, when the example has one."""
    return f'Text: "{text}"\n{instruction}' if text else instruction


def example_prompt(example: Example, instruction: str) -> str:
    """The prompt an example is asked with: its text, then the instruction. OCR examples leave
    their text out: the text of a meme is the OCR answer itself."""
    return compose_prompt(instruction, example.text if get_task(example.task).kind != "ocr" else "")


def format_prompt(family: Family, processor: Any, prompt: str, has_image: bool = True) -> str:
    """Turn a task prompt into the model's input string.

    LLaVA-1.5: ``USER: <image>\\n{prompt} ASSISTANT:``; BLIP-2: ``Question: {prompt} Answer:``
    (its processor prepends the query tokens); InstructBLIP: the plain prompt; any other model:
    its processor's chat template with one user turn.
    """
    if family == "llava":
        image = "<image>\n" if has_image else ""
        return f"USER: {image}{prompt} ASSISTANT:"
    if family == "blip2":
        return f"Question: {prompt} Answer:"
    if family == "instructblip":
        return prompt
    content = ([{"type": "image"}] if has_image else []) + [{"type": "text", "text": prompt}]
    return processor.apply_chat_template([{"role": "user", "content": content}], add_generation_prompt=True,
                                         tokenize=False)
