"""Merge a LoRA adapter into its base model and save a standalone model folder."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from mmsoc.models.loading import load_hf_model


def adapter_base(adapter_dir: str | os.PathLike) -> str:
    """The base model an adapter was trained on, as recorded in its ``adapter_config.json``."""
    path = Path(adapter_dir, "adapter_config.json")
    if not path.is_file():
        raise FileNotFoundError(f"{path}: not a peft adapter folder (adapter_config.json missing)")
    base = json.loads(path.read_text()).get("base_model_name_or_path")
    if not base:
        raise ValueError(f"{path}: field 'base_model_name_or_path' is empty; give the base model explicitly")
    return base


def merge_adapter(
    adapter_dir: str | os.PathLike, out_dir: str | os.PathLike, base_model: str | None = None, dtype: str = "float32"
) -> Path:
    """Fold the adapter's low-rank updates into the base weights; write model + processor to ``out_dir``.

    The folder is built beside ``out_dir`` and renamed into place, so a crash never leaves half a model.
    """
    out = Path(out_dir)
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} is not empty; choose a new folder for the merged model")
    model, processor, _ = load_hf_model(base_model or adapter_base(adapter_dir), dtype, "cpu", adapter=str(adapter_dir))
    merged = model.merge_and_unload()
    out.parent.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}."))
    try:
        merged.save_pretrained(build)
        processor.save_pretrained(build)
        if out.exists():
            out.rmdir()
        os.replace(build, out)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise
    return out
