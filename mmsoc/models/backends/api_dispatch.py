"""Calls to a model server on a bounded pool, ordered for the server's prefix cache.

vLLM (automatic prefix caching) and SGLang (radix cache) reuse the prompt prefix of a request only
once a request with that prefix has been computed or is running. So the calls of one batch that
share a prefix (a *group*: the same media and leading text, :func:`shared_prefix`) go out one first,
the *leader*, and the others, its *followers*, together once the leader has returned; other groups
proceed meanwhile, within the pool's concurrency. Results come back in the caller's order.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any

from mmsoc.core.io import UsageError
from mmsoc.models.base import Part, Request, Text

FAILURES = (OSError, ValueError, UsageError)
"""What a call may fail with and the caller collects; anything else is a bug and propagates."""


def shared_prefix(request: Request) -> tuple[Part, ...] | None:
    """The parts before the request's last text part (its question): the prefix it shares with the other
    questions about the same video, image or audio and leading text. None when there are none, or when no text
    follows them (a question before its image shares no prefix)."""
    last = max((i for i, part in enumerate(request.parts) if isinstance(part, Text)), default=0)
    return request.parts[:last] or None


def grouped(keys: Sequence[Hashable | None]) -> list[list[int]]:
    """Indices with the same key together, in order of first appearance; those with key None each alone."""
    groups: dict[Hashable, list[int]] = {}
    for index, key in enumerate(keys):
        groups.setdefault(("alone", index) if key is None else ("group", key), []).append(index)
    return list(groups.values())


@dataclass(frozen=True)
class Call:
    """One call to the server; calls with the same ``group`` share their prompt's prefix (None: with none)."""

    job: Callable[[], Any]
    group: Hashable | None = None


class Dispatcher:
    """A bounded pool of calls (``concurrency`` in flight), leader first per group; counts the calls it sent."""

    def __init__(self, concurrency: int):
        self.pool = ThreadPoolExecutor(concurrency, thread_name_prefix="mmsoc-api")
        self.lock = threading.Lock()
        self.sent = 0
        """Calls sent (a call's retries by the client are one call)."""
        self.leaders = 0
        """Calls sent first of a group of two or more, alone."""
        self.followers = 0
        """Calls sent after their group's leader had returned."""

    def run(self, calls: Sequence[Call], counted: bool = True) -> tuple[list[Any], list[BaseException | None]]:
        """(results, failures) in call order (None where a call failed / succeeded). ``counted``: the calls
        are requests to count. Interrupted, the calls not yet started are dropped, not sent."""
        batch = _Batch(self, calls, counted)
        for first, *rest in grouped([call.group for call in calls]):
            batch.send(first, "leader" if rest else "alone", rest)
        return batch.collect()

    def count(self, role: str) -> None:
        with self.lock:
            self.sent += 1
            self.leaders += role == "leader"
            self.followers += role == "follower"


class _Batch:
    """The calls of one :meth:`Dispatcher.run`: each call's outcome, and the pool futures started for them."""

    def __init__(self, dispatcher: Dispatcher, calls: Sequence[Call], counted: bool):
        self.dispatcher, self.calls, self.counted = dispatcher, calls, counted
        self.outcomes: list[Future[Any]] = [Future() for _ in calls]
        self.started: list[Future[Any]] = []
        self.stopped = False

    def send(self, index: int, role: str, then: Sequence[int] = ()) -> None:
        """Start call ``index``; once it has returned, start the calls ``then`` (its followers)."""
        with self.dispatcher.lock:
            if self.stopped:
                return
            future = self.dispatcher.pool.submit(self._run, index, role)
            self.started.append(future)
        future.add_done_callback(partial(self._done, index, then))

    def _run(self, index: int, role: str) -> Any:
        if self.counted:
            self.dispatcher.count(role)
        return self.calls[index].job()

    def _done(self, index: int, then: Sequence[int], future: Future[Any]) -> None:
        if future.cancelled():
            return
        error = future.exception()
        if error is None:
            self.outcomes[index].set_result(future.result())
        else:
            self.outcomes[index].set_exception(error)
        for follower in then:
            self.send(follower, "follower")

    def collect(self) -> tuple[list[Any], list[BaseException | None]]:
        results: list[Any] = []
        failures: list[BaseException | None] = []
        try:
            for outcome in self.outcomes:
                try:
                    results.append(outcome.result())
                    failures.append(None)
                except FAILURES as err:
                    results.append(None)
                    failures.append(err)
        except BaseException:  # interrupted, or a bug: nothing more is sent
            with self.dispatcher.lock:
                self.stopped = True
                started = list(self.started)
            for future in started:
                future.cancel()
            raise
        return results, failures
