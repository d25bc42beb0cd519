"""The Hugging Face hub copies ``Ahren09/MMSoc_*`` through the ``datasets`` library.

Rows (columns ``image, text, label`` and, for Memotion, the Memotion label columns) are turned into
the local formats and read by the same loaders; images are exported once (bytes as stored) under
``<cache>/hub/``. Split ``dev`` is asked for as ``validation``. The hub PolitiFact/GossipCop copies
are read with ``label`` 1 = fake (MM-Soc's convention). When the hub cannot be reached the error says
how to use local files instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from mmsoc.data import fakenewsnet, hateful_memes, memotion, youtube
from mmsoc.core.paths import cache_root
from mmsoc.data.result import LoadResult, share
from mmsoc.data.tables import Row
from mmsoc.core.io import UsageError, atomic_open

HUB_REPOS: dict[str, tuple[str, ...]] = {
    "misinfo_politifact": ("Ahren09/MMSoc_PolitiFact",),
    "misinfo_gossipcop": ("Ahren09/MMSoc_GossipCop",),
    "tagging": ("Ahren09/MMSoc_YouTube2000",),
    "hate": ("Ahren09/MMSoc_HatefulMemes",),
    **{task: ("Ahren09/MMSoc_Memotion",) for task in memotion.COLUMNS},
    "ocr": ("Ahren09/MMSoc_HatefulMemes", "Ahren09/MMSoc_Memotion"),
}
"""Task id -> the hub copies it reads with ``data="hub"``."""

LOCAL_HINT = ("Use local files instead: --data DIR with DIR in the MM-Soc layout (hateful_memes/, memotion/, "
              "fakenewsnet/, youtube2000/, descriptions/; see data_cards/mmsoc_layout.md), or --data sample "
              "for the embedded sample.")


class HubUnavailable(UsageError):
    """The hub copy cannot be loaded here (no ``datasets``, no network, or no such copy)."""


def load_hub(task_id: str, data: str, split: str, limit: int | None = None) -> LoadResult:
    """Examples of ``task_id`` from ``data`` = ``"hub"`` (the task's copies) or ``"hf://OWNER/NAME"``."""
    repos = (data[len("hf://"):],) if data.startswith("hf://") else HUB_REPOS.get(task_id)
    if not repos:
        raise HubUnavailable(f"task {task_id!r} has no hub copy. {LOCAL_HINT}")
    result = LoadResult()
    for repo in repos:
        result.extend(from_hub_rows(task_id, repo, hub_rows(repo, split), split, share(limit, len(repos))))
    return result.head(limit)


def hub_rows(repo: str, split: str) -> Any:
    """The ``datasets`` split of ``repo``; HubUnavailable with a how-to when it cannot be loaded."""
    try:
        import datasets
    except ImportError:
        raise HubUnavailable(f"loading {repo} needs the 'datasets' package (pip install datasets). {LOCAL_HINT}") from None
    try:
        return datasets.load_dataset(repo, split="validation" if split == "dev" else split)
    except OSError as err:  # ConnectionError and DatasetNotFoundError (a FileNotFoundError) are OSErrors
        raise HubUnavailable(f"cannot reach the Hugging Face hub for {repo} ({err}). {LOCAL_HINT}") from err


def from_hub_rows(task_id: str, repo: str, rows: Any, split: str, limit: int | None = None) -> LoadResult:
    """Examples from the rows of one hub copy (any iterable of dicts, e.g. a ``datasets.Dataset``)."""
    name = repo.rsplit("_", 1)[-1].lower()
    if name not in _ADAPTERS:
        known = ", ".join(sorted({r for repos in HUB_REPOS.values() for r in repos}))
        raise HubUnavailable(f"no reader for hub copy {repo!r} (known: {known}). {LOCAL_HINT}")
    field, adapt, loader = _ADAPTERS[name]
    image_dir = cache_root() / "hub" / repo.replace("/", "__") / split

    def local_rows() -> Iterator[tuple[int, Row]]:
        for number, row in enumerate(rows, start=1):
            local = adapt(dict(row), number)
            _export_image(row.get("image"), image_dir / local[field])
            yield number, local

    return loader(task_id, local_rows(), f"hf://{repo}[{split}]", image_dir, split, limit)


def _export_image(value: Any, path: Path) -> None:
    """Write a hub image (PIL image, ``{"bytes", "path"}`` dict or file path) to ``path`` once."""
    if value is None or path.is_file():
        return
    if isinstance(value, (str, dict)):
        data = value.get("bytes") if isinstance(value, dict) else None
        source = value if isinstance(value, str) else value.get("path")
        if data is None and not (source and os.path.isfile(source)):
            return
        with atomic_open(path, "wb") as handle:
            handle.write(data if data is not None else Path(source).read_bytes())
        return
    with atomic_open(path, "wb") as handle:
        value.save(handle, format=value.format or "PNG")


def _file_name(row: Row, number: int) -> str:
    return f"{row.get('id', number)}.png"


def _hateful_memes(row: Row, number: int) -> Row:
    return {**row, "id": row.get("id", number), "img": _file_name(row, number)}


def _memotion(row: Row, number: int) -> Row:
    name = Path(str(row.get("image_name") or f"{number}.png")).name
    return {**row, "image_name": name, "text_corrected": row.get("text_corrected") or row.get("text")}


def _fakenewsnet(row: Row, number: int) -> Row:
    return {**row, "id": row.get("id", number), "content": row.get("text"), "image": _file_name(row, number)}


def _youtube(row: Row, number: int) -> Row:
    topics = next((row[k] for k in ("topics", "tags", "label") if row.get(k) is not None), None)
    return {**row, "id": row.get("id", number), "thumbnail": _file_name(row, number), "topics": topics,
            "title": row.get("title") or row.get("text")}


def _memotion_loader(task_id: str, rows: Any, source: str, image_root: Path, split: str, limit: int | None) -> LoadResult:
    return memotion.from_rows(task_id, rows, source, image_root, split, limit, filter_split=False)


def _fakenewsnet_loader(task_id: str, rows: Any, source: str, image_root: Path, split: str, limit: int | None) -> LoadResult:
    return fakenewsnet.from_rows(task_id, rows, source, image_root, split, limit, fake_value=1)


_ADAPTERS: dict[str, tuple[str, Callable[[Row, int], Row], Callable[..., LoadResult]]] = {
    "hatefulmemes": ("img", _hateful_memes, hateful_memes.from_rows),
    "memotion": ("image_name", _memotion, _memotion_loader),
    "politifact": ("image", _fakenewsnet, _fakenewsnet_loader),
    "gossipcop": ("image", _fakenewsnet, _fakenewsnet_loader),
    "youtube2000": ("thumbnail", _youtube, youtube.from_rows),
}
"""Last part of the repo name (lower case) -> (image field, row adapter to the local format, loader)."""
