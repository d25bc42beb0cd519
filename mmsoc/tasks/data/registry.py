"""Every dataset of every suite, found by discovery: a module of a suite package declares ``DATASET``."""

from __future__ import annotations

from mmsoc.core.registry import Registry
from mmsoc.tasks.data.dataset import Dataset
from mmsoc.tasks.registry import SUITES

DATASETS: Registry[Dataset] = Registry("dataset")
for _package in SUITES.values():
    DATASETS.discover(
        _package, lambda module: [(module.DATASET.name, module.DATASET)] if hasattr(module, "DATASET") else []
    )


def suite_datasets(suite: str) -> list[Dataset]:
    """The datasets of ``suite``, in sample order (then by name)."""
    return sorted((d for d in DATASETS.values() if d.suite == suite), key=lambda d: (d.sample_order, d.name))
