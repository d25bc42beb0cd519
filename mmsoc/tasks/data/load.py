"""One entry point for every task: ``load_examples(task_id, data, split, limit)``.

``data`` is a folder in the task's suite layout (one sub-folder per dataset, named as the dataset;
see ``data_cards/mmsoc_layout.md``), the literal ``"sample"`` (the embedded sample, written once
into the cache), ``"hub"`` (the task's hub copies) or ``"hf://OWNER/NAME"``. The task's
``TaskSpec.sources`` name its datasets; each is looked up in the ``DATASETS`` registry. A task whose
datasets write no sample is refused with ``"sample"``; commands running many tasks filter their list
with ``tasks_for_data`` first (leaving such tasks out, with a note).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mmsoc.core.io import InputError, UsageError
from mmsoc.tasks.data.dataset import PAPER_OPTIONS, LoadOptions, canonical_split
from mmsoc.tasks.data.registry import DATASETS
from mmsoc.tasks.data.result import LoadResult, share
from mmsoc.tasks.registry import get_task

SAMPLE = "sample"
HUB = "hub"


def tasks_for_data(tasks: Sequence[str], data: str) -> tuple[tuple[str, ...], str | None]:
    """The tasks that ``data`` can give examples of, and a one-line note on those left out (None: none):
    with ``sample``, the tasks whose datasets all write part of the embedded sample; else all of them."""
    if data != SAMPLE:
        return tuple(tasks), None
    from mmsoc.tasks.data.sample import sample_tasks

    return sample_tasks(tasks)


def load_examples(
    task_id: str, data: str, split: str = "test", limit: int | None = None, options: LoadOptions = PAPER_OPTIONS
) -> LoadResult:
    """Examples of ``task_id`` from ``data`` (a folder, ``"sample"``, ``"hub"`` or ``"hf://..."``).

    Malformed rows raise :class:`mmsoc.core.io.InputError` (file, line, field); missing or unreadable
    images are recorded in ``LoadResult.problems`` and the item is kept with ``images=()``; an item
    whose path leads outside its data root is left out and recorded. With ``limit``, a task drawing
    on two datasets (OCR) takes about half from each.
    """
    spec = get_task(task_id)
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    split = canonical_split(split)
    datasets = [DATASETS.get(name) for name in spec.sources]
    if not datasets:
        raise KeyError(f"task {task_id!r} names no dataset in its sources")
    if data == HUB or data.startswith("hf://"):
        from mmsoc.tasks.data.hub import load_hub

        return load_hub(spec, datasets, data, split, limit, options)
    if data == SAMPLE:
        from mmsoc.tasks.data.sample import ensure_sample, without_sample

        missing = without_sample(task_id)
        if missing:
            raise UsageError(
                f"task {task_id!r} has no embedded sample (dataset {', '.join(missing)} writes none): "
                "give a data folder or 'hub', or leave it out"
            )
        root = ensure_sample(spec.suite)
    else:
        root = Path(data).expanduser()
        if not root.is_dir():
            raise InputError(root, "data folder not found (give a folder in the suite's layout, 'sample' or 'hub')")
    result = LoadResult()
    for dataset in datasets:
        result.extend(dataset.load(spec, root / dataset.name, split, share(limit, len(datasets)), options))
    return result.head(limit)
