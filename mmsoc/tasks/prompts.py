"""Benchmark prompts by version, with per-run and per-model overrides.

The default version is the task's own (``TaskSpec.prompt_version``, e.g. ``mmsoc-v1``). Overrides
come from a JSON or YAML file mapping task id -> prompt text; an optional ``models`` key maps a model
name to its own task id -> prompt mapping, which wins for that model. An overridden prompt's version
is ``<base version>+<first 8 hex digits of the SHA-256 of its text>``, so runs with different
prompts never share a cache key.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from mmsoc.core.io import InputError
from mmsoc.core.registry import unknown_message
from mmsoc.tasks.registry import TASKS, get_task


def prompt_for(task_id: str, version: str | None = None, overrides: dict[str, str] | None = None) -> tuple[str, str]:
    """(prompt text, version string) of ``task_id``; an override for the task replaces the text."""
    spec = get_task(task_id)
    version = version or spec.prompt_version
    if version != spec.prompt_version:
        raise KeyError(f"unknown prompt version {version!r} for task {task_id!r}; known: {spec.prompt_version}")
    if overrides and task_id in overrides:
        text = overrides[task_id]
        return text, f"{version}+{hashlib.sha256(text.encode('utf-8')).hexdigest()[:8]}"
    return spec.prompt, version


def load_prompt_overrides(path: str | os.PathLike, model: str | None = None) -> dict[str, str]:
    """Task id -> prompt text from a JSON/YAML file, with ``models[model]`` entries taking precedence."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise InputError(path, f"cannot read prompt overrides ({err.strerror})") from None
    data = parse_prompt_file(path, text)
    if not isinstance(data, dict):
        raise InputError(path, "expected a mapping of task id -> prompt text")
    per_model = data.pop("models", {}) or {}
    if not isinstance(per_model, dict):
        raise InputError(path, "expected a mapping of model name -> {task id: prompt}", field="models")
    overrides = _checked(path, data, "")
    if model is not None and model in per_model:
        overrides.update(_checked(path, per_model[model], f"models.{model}."))
    return overrides


def parse_prompt_file(path: Path, text: str) -> object:
    """The JSON or YAML object in ``text``, read from ``path``; bad syntax: an InputError with the line."""
    if path.suffix.lower() in (".yaml", ".yml"):
        import yaml

        try:
            return yaml.safe_load(text)
        except yaml.YAMLError as err:
            mark = getattr(err, "problem_mark", None)
            raise InputError(
                path, f"invalid YAML ({getattr(err, 'problem', err)})", line=mark.line + 1 if mark else None
            ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(path, f"invalid JSON ({err.msg})", line=err.lineno) from None


def _checked(path: Path, mapping: object, prefix: str) -> dict[str, str]:
    if not isinstance(mapping, dict):
        raise InputError(path, "expected a mapping of task id -> prompt text", field=prefix.rstrip(".") or None)
    for key, value in mapping.items():
        if key not in TASKS:
            raise InputError(path, unknown_message("task id", str(key), TASKS.names()), field=f"{prefix}{key}")
        if not isinstance(value, str) or not value.strip():
            raise InputError(path, "prompt must be a non-empty string", field=f"{prefix}{key}")
    return dict(mapping)
