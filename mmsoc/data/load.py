"""One entry point for every task: ``load_examples(task_id, data, split, limit)``.

``data`` is a folder in the local layout below, the literal ``"sample"`` (the embedded sample, written
once into the cache), ``"hub"`` (the task's ``Ahren09/MMSoc_*`` copy) or ``"hf://OWNER/NAME"``.

Local layout (the sample writer produces exactly this)::

    DIR/hateful_memes/{train,dev,test}.jsonl      + img/            (Hateful Memes)
    DIR/memotion/labels.csv | labels.xlsx         + images/         (Memotion 7k, optional split column)
    DIR/fakenewsnet/{politi,gossip}_{train,test}.csv + images/{politi,gossip}_{split}/
    DIR/youtube2000/{train,test}.jsonl            + thumbnails/     (YouTube2000)
    DIR/descriptions/{image_description,social_context}_{split}.jsonl (images relative to DIR)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mmsoc.data import descriptions, fakenewsnet, hateful_memes, memotion, youtube
from mmsoc.data.result import LoadResult, share
from mmsoc.core.io import InputError
from mmsoc.tasks.registry import get_task

SAMPLE = "sample"
HUB = "hub"

Loader = Callable[[str, Path, str, "int | None"], LoadResult]

SOURCES: dict[str, tuple[tuple[str, Loader], ...]] = {
    "misinfo_politifact": ((fakenewsnet.FOLDER, fakenewsnet.load),),
    "misinfo_gossipcop": ((fakenewsnet.FOLDER, fakenewsnet.load),),
    "tagging": ((youtube.FOLDER, youtube.load),),
    "hate": ((hateful_memes.FOLDER, hateful_memes.load),),
    **{task: ((memotion.FOLDER, memotion.load),) for task in memotion.COLUMNS},
    "ocr": ((hateful_memes.FOLDER, hateful_memes.load), (memotion.FOLDER, memotion.load)),
    "image_description": ((descriptions.FOLDER, descriptions.load),),
    "social_context": ((descriptions.FOLDER, descriptions.load),),
}
"""Task id -> (dataset folder under DIR, loader) for each dataset the task draws on."""


def load_examples(task_id: str, data: str, split: str = "test", limit: int | None = None) -> LoadResult:
    """Examples of ``task_id`` from ``data`` (a folder, ``"sample"``, ``"hub"`` or ``"hf://..."``).

    Malformed rows raise :class:`mmsoc.core.io.InputError` (file, line, field); missing or unreadable
    images are recorded in ``LoadResult.problems`` and the item is kept with ``images=()``.
    With ``limit``, a task drawing on two datasets (OCR) takes about half from each.
    """
    get_task(task_id)
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    if data == HUB or data.startswith("hf://"):
        from mmsoc.data.hub import load_hub

        return load_hub(task_id, data, split, limit)
    if data == SAMPLE:
        from mmsoc.data.sample import ensure_sample

        root = ensure_sample()
    else:
        root = Path(data).expanduser()
        if not root.is_dir():
            raise InputError(root, "data folder not found (give a folder in the MM-Soc layout, 'sample' or 'hub')")
    sources = SOURCES[task_id]
    result = LoadResult()
    for folder, loader in sources:
        result.extend(loader(task_id, root / folder, split, share(limit, len(sources))))
    return result.head(limit)
