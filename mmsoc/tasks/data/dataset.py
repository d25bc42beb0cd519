"""The dataset contract: what one module of a suite package declares as ``DATASET = Dataset(...)``.

A dataset is a folder ``DIR/<name>/`` in the suite's local layout; tasks name the datasets their items
come from in ``TaskSpec.sources``, and :func:`mmsoc.tasks.data.load_examples` dispatches through them.
A dataset brings

* ``load(spec, folder, split, limit, options)``: its local files -> :class:`LoadResult`;
* ``hub``: where its copies on the Hugging Face hub are and how their rows map to the local format;
* ``write_sample(folder, context)``: its part of the embedded sample, drawn from the shared random
  generator in ``sample_order`` (a new dataset goes last, so the other datasets' bytes stay).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmsoc.tasks.data.result import LoadResult
from mmsoc.tasks.data.rows import Row
from mmsoc.tasks.spec import TaskSpec

SPLIT_ALIASES = {"val": "dev", "validation": "dev"}
"""Other names of the dev split (the MM-Soc code says ``val``, the hub ``validation``)."""
TEXT_LENGTH = 128
"""Words of a long input text kept by default (MM-Soc ``--text_input_length 128``; 0 = all)."""


def canonical_split(split: str) -> str:
    """``train``, ``dev`` or ``test`` for the usual spellings; any other name as given."""
    split = split.strip()
    return SPLIT_ALIASES.get(split.lower(), split)


@dataclass(frozen=True)
class LoadOptions:
    """How items are built, where a protocol setting changes them."""

    text_length: int = TEXT_LENGTH
    """Datasets whose text is a long document (news) keep its first ``text_length`` words, by the
    official ``truncate_input`` rule; 0 keeps it whole."""


PAPER_OPTIONS = LoadOptions()
"""The paper's settings (the default of every loader)."""


Loader = Callable[[TaskSpec, Path, str, "int | None", LoadOptions], LoadResult]
"""(task, dataset folder, split, limit, options) -> examples and problems."""
RowsReader = Callable[[TaskSpec, Iterable[tuple[int, Row]], str, Path, str, "int | None", LoadOptions], LoadResult]
"""(task, numbered rows in the local format, source name, image folder, split, limit, options)."""


@dataclass(frozen=True)
class HubCopy:
    """Copies of a dataset on the Hugging Face hub that share one layout."""

    repos: tuple[str, ...]
    """Repository ids in this layout; ``--data hub`` reads the first (or ``task_repos[task]``), and
    ``hf://OWNER/NAME`` finds the layout by ``NAME``."""
    splits: Mapping[str, str]
    """Split name here (train, dev, test) -> its name on the hub; other splits are refused."""
    adapt: Callable[[Row, int], Row]
    """(hub row, row number) -> the row in the local format, with its image file name in ``image_field``."""
    image_field: str
    read: RowsReader
    task_repos: Mapping[str, str] = field(default_factory=dict)
    """Task id -> the copy ``--data hub`` reads, where tasks of one dataset read different copies."""

    def repo_for(self, task_id: str) -> str:
        return self.task_repos.get(task_id, self.repos[0])

    def serves(self, repo: str) -> bool:
        """Whether ``repo`` (any owner) has this layout."""
        name = repo.rsplit("/", 1)[-1].lower()
        return any(name == known.rsplit("/", 1)[-1].lower() for known in self.repos)


@dataclass
class SampleContext:
    """What the sample writers share: one random generator (drawn from in ``sample_order``), the
    splits and their sizes, and what earlier writers leave for later ones (``shared``)."""

    rng: random.Random
    splits: tuple[tuple[str, int], ...]
    shared: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Dataset:
    """One dataset of a suite: its folder name, local loader, hub copies and sample writer."""

    name: str
    """Registry key, the folder under ``DIR`` and what ``TaskSpec.sources`` names."""
    load: Loader
    hub: HubCopy | None = None
    write_sample: Callable[[Path, SampleContext], None] | None = None
    sample_order: int = 1000
    suite: str = "mmsoc"
