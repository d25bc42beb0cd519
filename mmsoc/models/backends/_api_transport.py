"""The HTTP transport of the ``openai`` client within a run's :class:`~mmsoc.models.backends.api_limits.CallLimits`:
no attempt once the deadline has passed, each attempt's time limits cut to what is left of it, an answer's
body read for at most the request timeout in all and at most ``max_bytes`` bytes. (Its name starts with an
underscore so that backend discovery does not import it: httpx2 comes with the ``api`` extra.)"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx2

from mmsoc.models.backends.api_limits import CallLimits, ResponseCut


class LimitedTransport(httpx2.BaseTransport):
    """The default transport, within the run's :class:`CallLimits`."""

    def __init__(self, limits: CallLimits):
        self.limits, self.inner = limits, httpx2.HTTPTransport()

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        self.limits.check()
        budget = min(self.limits.timeout, self.limits.left())
        timeouts = request.extensions.get("timeout", {})
        request.extensions["timeout"] = {k: budget if v is None else min(v, budget) for k, v in timeouts.items()}
        response = self.inner.handle_request(request)
        body = _LimitedBody(response.stream, self.limits, time.monotonic() + budget)  # type: ignore[arg-type]
        return httpx2.Response(
            response.status_code, headers=response.headers, stream=body, extensions=response.extensions
        )

    def close(self) -> None:
        self.inner.close()


class _LimitedBody(httpx2.SyncByteStream):
    """An answer's body, read until ``until`` (monotonic time) and for at most ``limits.max_bytes`` bytes."""

    def __init__(self, inner: httpx2.SyncByteStream, limits: CallLimits, until: float):
        self.inner, self.limits, self.until = inner, limits, until

    def __iter__(self) -> Iterator[bytes]:
        read = 0
        for chunk in self.inner:
            read += len(chunk)
            if read > self.limits.max_bytes:
                raise ResponseCut(f"response cut at {self.limits.max_bytes} bytes (--max-response-bytes)")
            if time.monotonic() > self.until:
                self.limits.check()
                raise httpx2.ReadTimeout(f"the answer took over {self.limits.timeout:g} s")
            yield chunk

    def close(self) -> None:
        self.inner.close()


def http_client(limits: CallLimits) -> Any:
    """An HTTP client for the ``openai`` client (its own defaults) through :class:`LimitedTransport`; answers
    uncompressed, so that the size cap is on what is kept."""
    import openai

    return openai.DefaultHttpxClient(transport=LimitedTransport(limits), headers={"Accept-Encoding": "identity"})
