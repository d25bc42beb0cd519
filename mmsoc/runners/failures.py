"""What a run's items came to, said by its exit status: a script or a CI job running us can tell a run that
failed from one that succeeded.

An item of a run is one prediction it is asked to make (a task's item with one seed; in ``desiq eval`` a question
under one condition and rotation). It succeeded if the run folder holds its prediction, else it failed (its
reason is in problems.jsonl). A run in which no item succeeded fails (exit status 1, ``0 of N items succeeded;
first error: ...``); one with some failures succeeds, says how many on stderr and records them in
runtime.json (``items``, ``failed_items``), unless there are more than ``--max-failures`` allows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from mmsoc.core.io import RunFailed

SHOWN_ERROR_CHARS = 130
"""Longest the first error is quoted in the one-line verdict, its head (which item) and its tail (why) kept; every
error is whole in problems.jsonl."""
K = TypeVar("K", bound=Hashable)
_LIMIT = re.compile(r"(?P<number>\d+(?:\.\d+)?)(?P<percent>%?)")


@dataclass(frozen=True)
class MaxFailures:
    """``--max-failures``: the most items a run may fail and still succeed, a number or a percentage of its items."""

    number: float
    percent: bool = False

    @classmethod
    def parse(cls, text: str | None) -> MaxFailures | None:
        """``N`` (items) or ``P%`` (of the run's items, 0 to 100); None for None."""
        if text is None:
            return None
        found = _LIMIT.fullmatch(text.strip())
        if found is None or (not found["percent"] and "." in found["number"]):
            raise ValueError(f"--max-failures {text[:40]!r}: give a number of items (3) or a percentage (5%)")
        limit = cls(float(found["number"]), bool(found["percent"]))
        if limit.percent and limit.number > 100:
            raise ValueError(f"--max-failures {text[:40]!r}: a percentage is at most 100%")
        return limit

    def allows(self, failed: int, items: int) -> bool:
        return failed * 100 <= self.number * items if self.percent else failed <= self.number

    def __str__(self) -> str:
        return f"{self.number:g}%" if self.percent else f"{self.number:g}"


@dataclass(frozen=True)
class Tally:
    """A run's items, how many of them failed and the first failure's reason (None: none recorded)."""

    items: int
    failed: int
    first_error: str | None = None

    @classmethod
    def of(
        cls,
        asked: Sequence[K],
        made: set[K],
        reasons: Sequence[tuple[Hashable, str]],
        named: Callable[[K], Hashable] = lambda key: key,
    ) -> Tally:
        """The items ``asked`` (keys), those with a prediction (``made``), and (name, reason) of the problems
        recorded, in order, where a problem names an item by ``named(key)``: the first error is the first
        reason of an item that failed."""
        failed = [key for key in asked if key not in made]
        names = {named(key) for key in failed}
        first = next((reason for name, reason in reasons if name in names), None)
        return cls(len(asked), len(failed), first)

    def to_json(self) -> dict[str, Any]:
        return {"items": self.items, "failed_items": self.failed}

    def verdict(self, limit: MaxFailures | None) -> str | None:
        """One line saying how many items failed (None: none did); raise RunFailed when none succeeded or more
        failed than ``limit`` allows."""
        if not self.failed:
            return None
        error = " ".join((self.first_error or "no prediction recorded").split())
        if len(error) > SHOWN_ERROR_CHARS:
            half = (SHOWN_ERROR_CHARS - 5) // 2
            error = f"{error[:half]} ... {error[-half:]}"
        if self.failed == self.items:
            raise RunFailed(f"0 of {self.items} items succeeded; first error: {error}")
        said = f"{self.failed} of {self.items} items failed"
        if limit is not None and not limit.allows(self.failed, self.items):
            raise RunFailed(f"{said}, more than --max-failures {limit} allows; first error: {error}")
        return f"{said} (each in problems.jsonl); first error: {error}"
