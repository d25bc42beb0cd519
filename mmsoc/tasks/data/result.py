"""What a loader returns: the examples, and the per-item problems it recorded instead of failing."""

from __future__ import annotations

from dataclasses import dataclass, field

from mmsoc.core.records import Example


@dataclass(frozen=True)
class ItemProblem:
    """A problem with one item that did not stop loading (e.g. its image is missing or unreadable)."""

    id: str
    file: str
    field: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = self.file + (f", line {self.line}" if self.line is not None else "")
        return f"{where}: item {self.id!r}, field '{self.field}': {self.message}"


class SkipItem(Exception):
    """Raised while building one item that must not be used at all (e.g. its image path leads outside
    the data root): the item is left out and its problem recorded."""

    def __init__(self, problem: ItemProblem):
        super().__init__(str(problem))
        self.problem = problem


@dataclass
class LoadResult:
    """Examples of one task and split, plus the problems recorded while loading them."""

    examples: list[Example] = field(default_factory=list)
    problems: list[ItemProblem] = field(default_factory=list)

    def extend(self, other: LoadResult) -> None:
        self.examples.extend(other.examples)
        self.problems.extend(other.problems)

    def head(self, limit: int | None) -> LoadResult:
        """The first ``limit`` examples and the problems not of the examples dropped (all when ``limit``
        is None); problems of items left out while loading stay."""
        if limit is None or len(self.examples) <= limit:
            return self
        dropped = {example.id for example in self.examples[limit:]}
        return LoadResult(self.examples[:limit], [problem for problem in self.problems if problem.id not in dropped])


def share(limit: int | None, parts: int) -> int | None:
    """Per-dataset limit when a task draws on ``parts`` datasets (OCR: about half from each)."""
    return None if limit is None else -(-limit // parts)
