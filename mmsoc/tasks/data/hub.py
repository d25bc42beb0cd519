"""Hub copies of the datasets through the ``datasets`` library.

Each dataset declares its copies (:class:`mmsoc.tasks.data.dataset.HubCopy`): repository ids, split
names as stored on the hub, and how a hub row maps to the local format, so that the dataset's own
rows reader builds the examples. Images are exported once (embedded bytes as stored) under
``<cache>/hub/REPO/SPLIT/``; a file name taken from a row that would lead outside that folder is
never written and the item is left out. When the hub cannot be reached the error says how to use
local files instead.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from mmsoc.core.io import UsageError, atomic_open
from mmsoc.core.paths import OutsideRoot, cache_root, inside
from mmsoc.tasks.data.dataset import PAPER_OPTIONS, Dataset, HubCopy, LoadOptions
from mmsoc.tasks.data.result import LoadResult, share
from mmsoc.tasks.data.rows import Row
from mmsoc.tasks.spec import TaskSpec


class HubUnavailable(UsageError):
    """The hub copy cannot be loaded here (no ``datasets``, no network, no such copy or split)."""


def local_hint(suite: str) -> str:
    from mmsoc.tasks.data.registry import suite_datasets

    folders = ", ".join(f"{d.name}/" for d in suite_datasets(suite))
    return (
        f"Use local files instead: --data DIR with DIR in the {suite} layout ({folders}; see "
        f"data_cards/{suite}_layout.md), or --data sample for the embedded sample."
    )


def load_hub(
    spec: TaskSpec,
    datasets: Sequence[Dataset],
    data: str,
    split: str,
    limit: int | None = None,
    options: LoadOptions = PAPER_OPTIONS,
) -> LoadResult:
    """Examples of ``spec`` from ``data`` = ``"hub"`` (each source dataset's copy) or ``"hf://OWNER/NAME"``."""
    copies = [(d.hub, d.hub.repo_for(spec.id)) for d in datasets if d.hub is not None]
    if data.startswith("hf://"):
        repo = data[len("hf://") :]
        copies = [(hub, repo) for hub, _ in copies if hub.serves(repo)]
        if not copies:
            known = ", ".join(d.hub.repo_for(spec.id) for d in datasets if d.hub is not None) or "none"
            raise HubUnavailable(
                f"task {spec.id!r} cannot read {repo!r} (its hub copies: {known}). {local_hint(spec.suite)}"
            )
    if not copies:
        raise HubUnavailable(f"task {spec.id!r} has no hub copy. {local_hint(spec.suite)}")
    result = LoadResult()
    for hub, repo in copies:
        rows = hub_rows(repo, hub_split(hub, repo, split, spec.suite), local_hint(spec.suite))
        result.extend(from_hub_rows(spec, hub, repo, rows, split, share(limit, len(copies)), options))
    return result.head(limit)


def hub_split(hub: HubCopy, repo: str, split: str, suite: str) -> str:
    """The hub's name of ``split``; HubUnavailable when the copy has no such split."""
    if split not in hub.splits:
        raise HubUnavailable(f"{repo} has no {split!r} split (it has: {', '.join(hub.splits)}). {local_hint(suite)}")
    return hub.splits[split]


def hub_rows(repo: str, split: str, hint: str = "") -> Any:
    """The ``datasets`` split of ``repo``; HubUnavailable (message + ``hint``) when it cannot be loaded."""
    try:
        import datasets
    except ImportError:
        raise HubUnavailable(f"loading {repo} needs the 'datasets' package (pip install datasets). {hint}") from None
    try:
        rows = datasets.load_dataset(repo, split=split)
    except OSError as err:  # ConnectionError and DatasetNotFoundError (a FileNotFoundError) are OSErrors
        raise HubUnavailable(f"cannot reach the Hugging Face hub for {repo} ({_one_line(err)}). {hint}") from err
    except ValueError as err:  # an unknown split
        raise HubUnavailable(f"cannot load split {split!r} of {repo} ({_one_line(err)}). {hint}") from err
    return rows


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split())


def from_hub_rows(
    spec: TaskSpec,
    hub: HubCopy,
    repo: str,
    rows: Any,
    split: str,
    limit: int | None = None,
    options: LoadOptions = PAPER_OPTIONS,
) -> LoadResult:
    """Examples from the rows of one hub copy (any iterable of dicts, e.g. a ``datasets.Dataset``, whose
    images are then read undecoded: stored bytes and file name)."""
    rows = _undecoded(rows)
    image_dir = cache_root() / "hub" / repo.replace("/", "__") / split

    def local_rows() -> Iterator[tuple[int, Row]]:
        for number, row in enumerate(rows, start=1):
            local = hub.adapt(dict(row), number)
            export_image(row.get("image"), image_dir, str(local[hub.image_field]))
            yield number, local

    return hub.read(spec, local_rows(), f"hf://{repo}[{split}]", image_dir, split, limit, options)


def _undecoded(rows: Any) -> Any:
    features = getattr(rows, "features", None)
    if features is None or type(features.get("image")).__name__ != "Image":
        return rows
    from datasets import Image

    return rows.cast_column("image", Image(decode=False))


def image_file_name(value: Any, fallback: str) -> str:
    """The file name a hub image was stored under (``{"path": ...}``), else ``fallback``."""
    path = value.get("path") if isinstance(value, dict) else None
    return Path(str(path)).name if path else fallback


def export_image(value: Any, root: Path, name: str) -> None:
    """Write a hub image (embedded ``{"bytes": ...}`` or a PIL image) to ``root/name`` once.

    Only embedded bytes are written: a path stored in the row is never read, and a ``name`` that
    leads outside ``root`` is not written (the rows reader then leaves the item out)."""
    try:
        path = inside(root, name)
    except OutsideRoot:
        return
    if value is None or path.is_file():
        return
    if isinstance(value, dict):
        if value.get("bytes") is None:
            return
        with atomic_open(path, "wb") as handle:
            handle.write(value["bytes"])
        return
    if hasattr(value, "save"):
        with atomic_open(path, "wb") as handle:
            value.save(handle, format=value.format or "PNG")
