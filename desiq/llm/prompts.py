"""Prompts for multimodal LLMs on Social-IQ, as versioned data.

A :class:`PromptSpec` is a set of text pieces: the context (the transcript), the question, the
answer choices (each labelled), the closing instruction, and ``answer``: how an answer is written.
``answer`` is both the continuation scored by ``--answer loglik`` and the target of fine-tuning, so
a fine-tuned model is scored on exactly what it learnt to write. A piece whose input is absent
(no transcript in the setting, no question under NCAQ) is left out.

Built in:

- ``siq2-challenge-v1``: the Social-IQ 2.0 challenge baseline prompt, character for character
  (``Context:"<transcript>"`` ... ``Respond with only the index of the more likely correct answer
  to the question:``), options labelled 0-3 (0-9 for up to ten options); its answer is the index it
  asks for.
- ``mc-letter-v1``: a multimodal variant with lettered options (A..J: as many as the question has),
  answered by letter and text (``B. <option>``).

A prompts file (JSON or YAML) maps a name to fields; an entry takes the fields it does not give
from ``base`` (default: ``mc-letter-v1``). A prompt from a file is versioned as
``<name>+<first 8 hex digits of the SHA-256 of its fields>``, so runs with other wording never
share a run folder.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from mmsoc.core.io import InputError
from mmsoc.core.registry import unknown_message

DEFAULT_PROMPT = "mc-letter-v1"


@dataclass(frozen=True)
class PromptSpec:
    """The pieces of one prompt; ``{transcript}``, ``{question}``, ``{label}`` and ``{text}`` are filled in."""

    name: str
    labels: tuple[str, ...]
    context: str
    question: str
    choices: str
    choice: str
    instruction: str
    answer: str
    version: str = ""

    def render(self, question: str, options: Sequence[str], transcript: str | None = None) -> str:
        """The prompt text; the context only with a transcript, the question only when there is one."""
        if len(options) > len(self.labels):
            raise ValueError(f"prompt {self.name} labels {len(self.labels)} options, not {len(options)}")
        text = self.context.format(transcript=transcript) if transcript is not None else ""
        text += self.question.format(question=question) if question else ""
        text += self.choices
        text += "".join(self.choice.format(label=label, text=option) for label, option in zip(self.labels, options))
        return text + self.instruction

    def answers(self, options: Sequence[str]) -> list[str]:
        """How each option is written as the answer (the scored continuation, the fine-tuning target)."""
        return [self.answer.format(label=label, text=option) for label, option in zip(self.labels, options)]

    def to_json(self) -> dict[str, str | list[str]]:
        out = asdict(self)
        out["labels"] = list(self.labels)
        return out


BUILTIN: dict[str, PromptSpec] = {
    p.name: replace(p, version=p.name)
    for p in (
        PromptSpec(
            "siq2-challenge-v1",
            tuple("0123456789"),
            'Context:"{transcript}"\n',
            'Question:"{question}"\n',
            "Answer Choices:\n",
            '({label})"{text}"\n',
            "Respond with only the index of the more likely correct answer to the question:",
            "{label}",
        ),
        PromptSpec(
            "mc-letter-v1",
            tuple("ABCDEFGHIJ"),
            "Transcript:\n{transcript}\n\n",
            "Question: {question}\n",
            "Options:\n",
            "{label}. {text}\n",
            "Answer with the letter and the text of the correct option.",
            "{label}. {text}",
        ),
    )
}


def load_prompts(path: str | os.PathLike | None = None) -> dict[str, PromptSpec]:
    """The built-in prompts plus (overriding by name) those of a JSON/YAML prompts file."""
    prompts = dict(BUILTIN)
    if path is None:
        return prompts
    path = Path(path)
    data = _read(path)
    if not isinstance(data, dict):
        raise InputError(path, "expected a mapping of prompt name -> fields")
    known = {f.name for f in fields(PromptSpec)} - {"name", "version"}
    for name, entry in data.items():
        if not isinstance(entry, dict):
            raise InputError(path, "expected a mapping of fields", field=str(name))
        base_name = entry.get("base", DEFAULT_PROMPT)
        if base_name not in prompts:
            raise InputError(
                path, f"unknown base prompt {base_name!r} (known: {', '.join(prompts)})", field=f"{name}.base"
            )
        given = {k: v for k, v in entry.items() if k != "base"}
        for key, value in given.items():
            if key not in known:
                raise InputError(path, f"unknown field (known: {', '.join(sorted(known))})", field=f"{name}.{key}")
            if key == "labels":
                if not isinstance(value, (list, str)) or len(value) < 2 or not all(isinstance(v, str) for v in value):
                    raise InputError(path, "expected at least two labels (a list of strings)", field=f"{name}.labels")
            elif not isinstance(value, str):
                raise InputError(path, "expected a string", field=f"{name}.{key}")
        changes: dict[str, Any] = {k: tuple(v) if k == "labels" else v for k, v in given.items()}  # checked above
        spec = replace(prompts[base_name], name=str(name), **changes)
        _check(path, spec)
        digest = hashlib.sha256(json.dumps({**spec.to_json(), "version": ""}, sort_keys=True).encode()).hexdigest()
        prompts[str(name)] = replace(spec, version=f"{name}+{digest[:8]}")
    return prompts


def get_prompt(name: str = DEFAULT_PROMPT, path: str | os.PathLike | None = None) -> PromptSpec:
    prompts = load_prompts(path)
    if name not in prompts:
        raise KeyError(unknown_message("prompt", name, prompts))
    return prompts[name]


def _check(path: Path, spec: PromptSpec) -> None:
    probe = {"transcript": "", "question": "", "label": "", "text": ""}
    for key in ("context", "question", "choices", "choice", "instruction", "answer"):
        try:
            getattr(spec, key).format(**probe)
        except (KeyError, IndexError, ValueError) as err:
            raise InputError(
                path,
                f"bad placeholder ({err}); use {{transcript}}, {{question}}, {{label}}, "
                "{text} (double braces for literal ones)",
                field=f"{spec.name}.{key}",
            ) from None


def _read(path: Path) -> object:
    from mmsoc.tasks.prompts import parse_prompt_file

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise InputError(path, f"cannot read prompts file ({err.strerror})") from None
    return parse_prompt_file(path, text)
