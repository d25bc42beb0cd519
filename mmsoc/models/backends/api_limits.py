"""What calls to a model server may cost: a deadline for the whole run, a time and a size limit per answer,
and each item's tries counted in all.

Every HTTP attempt of the ``openai`` client goes through
:class:`~mmsoc.models.backends._api_transport.LimitedTransport` within the run's :class:`CallLimits`: once
``--deadline`` has passed no attempt is sent, and the time limits of one still sent are cut to what is left;
an answer's body is read for at most ``--request-timeout`` seconds in all (a server that trickles bytes is
timed out like one that sends none) and at most ``--max-response-bytes`` bytes (a longer answer is cut and
the call fails, not retried). The client's own retries (backoff, ``Retry-After``) are used as they are, so
a deadline is kept to within one back-off.

:class:`Outcomes` keeps what each item came to: the answers of a batch's other items while one failed, and
the items that failed for good. The evaluation loop asks a failed batch's items again one by one; an item
whose calls failed already (its ``--retries`` spent) is then not sent again, its failure is raised at once.
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from mmsoc.core.io import UsageError
from mmsoc.models.base import CannotScore

K = TypeVar("K", bound=Hashable)

MAX_RESPONSE_BYTES = 8 * 2**20
"""Default cap of an answer's body: prompt log-probabilities of a long video prompt run to megabytes."""


class RequestFailed(OSError):
    """A call to the server failed for good (after its retries), or the server refused it (``status``)."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class DeadlinePassed(RequestFailed):
    """The run's ``--deadline`` passed before (or while) the call was made."""


class ResponseCut(RequestFailed):
    """The server's answer was longer than ``--max-response-bytes``."""


@dataclass(frozen=True)
class CallLimits:
    """Per attempt: ``timeout`` seconds; per item: ``retries`` after its first try; per answer: ``max_bytes``;
    per run: ``deadline`` seconds from ``start`` (None: none)."""

    timeout: float = 600.0
    retries: int = 6
    deadline: float | None = None
    max_bytes: int = MAX_RESPONSE_BYTES
    start: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        if (
            self.retries < 0
            or self.timeout <= 0
            or self.max_bytes < 1
            or (self.deadline is not None and self.deadline <= 0)
        ):
            raise ValueError("--retries must be >= 0, --request-timeout, --deadline and --max-response-bytes > 0")

    def left(self) -> float:
        """Seconds left before the deadline (infinite without one)."""
        return float("inf") if self.deadline is None else self.start + self.deadline - time.monotonic()

    def check(self) -> None:
        """Raise DeadlinePassed once the deadline has passed."""
        if self.left() <= 0:
            raise DeadlinePassed(f"deadline: --deadline {self.deadline:g} s passed")

    def to_json(self) -> dict[str, Any]:
        return {
            "request_timeout": self.timeout,
            "retries": self.retries,
            "deadline": self.deadline,
            "max_response_bytes": self.max_bytes,
        }


class Outcomes:
    """What each item (a key) came to in this process: an answer, kept until :meth:`take` hands it over, or a
    failure for good (the item is not sent again)."""

    def __init__(self) -> None:
        self.results: dict[Hashable, Any] = {}
        self.failures: dict[Hashable, BaseException] = {}

    def pending(self, keys: Sequence[K]) -> list[K]:
        """The keys to send: each once, neither answered nor failed."""
        return [key for key in dict.fromkeys(keys) if key not in self.results and key not in self.failures]

    def record(self, key: Hashable, result: Any, failure: BaseException | None) -> None:
        if failure is None:
            self.results[key] = result
        else:
            self.failures[key] = failure

    def take(self, keys: Sequence[Hashable]) -> list[Any]:
        """The answers of ``keys`` in order (then forgotten); if any failed, the failure to raise for the batch:
        one the user must act on first (a refused key, no scoring), else the first."""
        found = [self.failures[key] for key in keys if key in self.failures]
        first = next((f for f in found if isinstance(f, (UsageError, CannotScore))), found[0] if found else None)
        if first is not None:
            raise first
        answers = [self.results[key] for key in keys]
        for key in set(keys):
            del self.results[key]
        return answers
