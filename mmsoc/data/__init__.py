"""MM-Soc data: loaders for the real dataset formats and hub copies, and the embedded sample."""

from mmsoc.data.load import HUB, SAMPLE, SOURCES, load_examples
from mmsoc.data.result import ItemProblem, LoadResult

__all__ = ["HUB", "SAMPLE", "SOURCES", "ItemProblem", "LoadResult", "load_examples"]
