"""Datasets of the suites: the dataset contract (``dataset``), its registry (``DATASETS``, found in the
suite packages), the one entry point ``load_examples``, and what loaders share: table declarations
(``table``), row readers, image paths confined to their root, the hub reader, the sample writer and its
drawings."""

from mmsoc.tasks.data.dataset import LoadOptions
from mmsoc.tasks.data.load import HUB, SAMPLE, load_examples
from mmsoc.tasks.data.result import ItemProblem, LoadResult

__all__ = ["HUB", "SAMPLE", "ItemProblem", "LoadOptions", "LoadResult", "load_examples"]
