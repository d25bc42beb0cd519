"""What ran: ``provenance.json`` beside a run folder's ``config.json``.

It sits outside the run's identity, so a rerun with a newer library still resumes; each invocation that
claims the folder appends its record, so the file says every version that wrote into it. A record holds
the date (UTC), Python, the platform, the versions of mmsoc (with its git commit when it runs from a
checkout) and of every installed library that produced a number, the hardware (the GPU and its memory
when torch is already loaded, else the CPU and the machine's memory), and the model: a hub id with the
commit sha its hub-cache snapshot has (read offline) or, for a local folder, a fingerprint of its config
and weight index. Nothing here imports torch: a torch-free run records no GPU.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

from mmsoc.core.io import write_json

PROVENANCE = "provenance.json"
LIBRARIES = (
    "mmsoc",
    "torch",
    "transformers",
    "tokenizers",
    "accelerate",
    "peft",
    "sentence-transformers",
    "open_clip_torch",
    "timm",
    "huggingface-hub",
    "safetensors",
    "datasets",
    "numpy",
    "scipy",
    "scikit-learn",
    "statsmodels",
    "pandas",
    "jiwer",
    "rouge-score",
    "rouge",
    "sacrebleu",
    "nltk",
    "bert-score",
    "seqeval",
    "av",
    "decord",
    "soundfile",
    "torchaudio",
    "openai",
)
"""Distributions whose version a record keeps (those installed): the toolkit and what computes its numbers."""
COMPARED = ("mmsoc", "torch", "transformers", "peft", "numpy", "scikit-learn")
"""The versions that, differing between runs shown side by side, earn a warning."""
INDEX_FILES = ("config.json", "model.safetensors.index.json", "pytorch_model.bin.index.json", "adapter_config.json")


@dataclass(frozen=True)
class ModelSource:
    """Where a run's weights came from: a hub ``repo`` at ``revision`` (a commit sha where the hub cache
    knows it), or a local ``folder`` with its ``fingerprint``."""

    spec: str
    repo: str | None = None
    revision: str | None = None
    folder: str | None = None
    fingerprint: str | None = None


def versions() -> dict[str, str]:
    """Installed version of each of :data:`LIBRARIES`."""
    found = {}
    for name in LIBRARIES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def git_commit() -> str | None:
    """The commit of the checkout mmsoc runs from (``+dirty`` with uncommitted changes), or None."""
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        return None
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=30)
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "mmsoc", "desiq"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if head.returncode != 0:
        return None
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def hardware() -> dict[str, Any]:
    """The device the run used: the first GPU torch sees (when torch is loaded), else the CPU."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        properties = torch.cuda.get_device_properties(0)
        return {
            "device": properties.name,
            "memory_gb": round(properties.total_memory / 2**30, 1),
            "gpus": torch.cuda.device_count(),
        }
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") if hasattr(os, "sysconf") else 0
    return {
        "device": platform.processor() or platform.machine(),
        "memory_gb": round(memory / 2**30, 1),
        "cpus": os.cpu_count(),
    }


def fingerprint(folder: Path) -> str:
    """sha256 of a model folder's config and weight index files (their bytes), and of each weight file's
    name and size: the same checkpoint gives the same fingerprint wherever the folder lies."""
    digest = hashlib.sha256()
    for name in INDEX_FILES:
        if (folder / name).is_file():
            digest.update(name.encode() + b"\0" + (folder / name).read_bytes() + b"\0")
    for weights in sorted(p for p in folder.iterdir() if p.suffix in (".safetensors", ".bin", ".pt", ".gguf")):
        digest.update(f"{weights.name}\0{weights.stat().st_size}\0".encode())
    return digest.hexdigest()


def hub_snapshot(folder: Path) -> tuple[str, str] | None:
    """(repo id, commit sha) of a hub-cache snapshot folder (``models--OWNER--NAME/snapshots/SHA``), else None."""
    parts = folder.resolve().parts
    if len(parts) >= 3 and parts[-2] == "snapshots" and parts[-3].startswith("models--"):
        return parts[-3].removeprefix("models--").replace("--", "/"), parts[-1]
    return None


def cached_revision(repo: str, revision: str | None) -> str | None:
    """The commit sha the local hub cache holds for ``repo`` at ``revision`` (default: main), read offline;
    None where the cache holds none, or without huggingface_hub."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ModuleNotFoundError:
        return None
    try:
        path = try_to_load_from_cache(repo, "config.json", revision=revision)
    except ValueError:  # not a repo id
        return None
    return Path(path).parent.name if isinstance(path, str) else None


def model_source(spec: str, revision: str | None = None) -> ModelSource:
    """What ``--model`` SPEC (``BACKEND:ARG`` or a bare hub id or folder) loads its weights from."""
    backend, sep, arg = spec.partition(":")
    arg = arg if sep and backend in ("hf", "lm", "text-baseline") else spec
    folder = Path(arg)
    if folder.is_dir():
        snapshot = hub_snapshot(folder)
        if snapshot is not None:
            return ModelSource(
                spec, repo=snapshot[0], revision=snapshot[1], folder=str(folder), fingerprint=fingerprint(folder)
            )
        return ModelSource(spec, folder=str(folder.resolve()), fingerprint=fingerprint(folder))
    if (sep and backend not in ("hf", "lm", "text-baseline")) or "/" not in arg:
        return ModelSource(spec)  # a server's model, or no weights at all (random)
    return ModelSource(spec, repo=arg, revision=cached_revision(arg, revision) or revision)


def record(model: str | None = None, revision: str | None = None, loaded: Any = None) -> dict[str, Any]:
    """This invocation's record: date, Python, platform, versions, git commit, hardware and the model."""
    return {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "versions": versions(),
        "git_commit": git_commit(),
        "hardware": hardware(),
        "model": None if model is None else asdict(model_source(model, revision)),
        "loaded": loaded,
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
    }


def append_record(folder: str | os.PathLike, entry: dict[str, Any]) -> None:
    """Add ``entry`` to ``folder``'s provenance.json (written whole, through a temporary)."""
    path = Path(folder) / PROVENANCE
    write_json(path, {"runs": [*read_records(folder), entry]})


def read_records(folder: str | os.PathLike) -> list[dict[str, Any]]:
    """The records of ``folder``'s provenance.json, oldest first; none where it has no readable one."""
    path = Path(folder) / PROVENANCE
    try:
        runs = json.loads(path.read_text(encoding="utf-8")).get("runs")
    except (OSError, ValueError, AttributeError):
        return []
    return [run for run in runs if isinstance(run, dict)] if isinstance(runs, list) else []


def differences(named: dict[str, list[dict[str, Any]]]) -> list[str]:
    """One warning per library version or model revision that differs between the runs named (each run's
    latest record), e.g. ``transformers: 5.24.0 (a), 5.20.2 (b)``."""
    latest = {name: records[-1] for name, records in named.items() if records}
    warnings = []
    for library in COMPARED:
        seen = {name: entry.get("versions", {}).get(library) for name, entry in latest.items()}
        if len({v for v in seen.values() if v is not None}) > 1:
            warnings.append(f"{library}: " + ", ".join(f"{v} ({n})" for n, v in seen.items() if v is not None))
    by_repo: dict[str, dict[str, str]] = {}
    for name, entry in latest.items():
        model = entry.get("model") or {}
        if model.get("repo") and model.get("revision"):
            by_repo.setdefault(model["repo"], {})[name] = model["revision"]
    for repo, revisions in by_repo.items():
        if len(set(revisions.values())) > 1:
            warnings.append(f"{repo} revision: " + ", ".join(f"{r} ({n})" for n, r in revisions.items()))
    return warnings
