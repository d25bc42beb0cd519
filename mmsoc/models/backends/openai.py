"""Any OpenAI-compatible chat server (vLLM, SGLang, transformers serve, a hosted API) behind the model contract.

``--model openai:NAME --api-base URL``: each request becomes one ``/chat/completions`` call with
one user message whose content parts follow the request's parts in order: text parts as text,
images and sampled video frames (``VIDEO_FRAMES`` uniform frames, JPEG) as base64 data URLs in
``image_url`` parts. Greedy decoding sends ``temperature=0``; sampling sends the run's
temperature and top-p; every call carries the request's own seed (:attr:`Request.rng_seed`), so
a server that seeds per request (vLLM, SGLang) answers the same whatever the batch or concurrency.

Calls run on a bounded pool of threads (``--concurrency``) through the ``openai`` client, which
retries timeouts, connection errors, 408/409/429 and 5xx answers with exponential backoff and
jitter (``--retries`` times, honouring ``Retry-After``). A call that still fails raises
:class:`RequestFailed` (an ``OSError``) naming the item; the evaluation loop records it as a
problem and a rerun of the same command asks again. The key comes from ``MMSOC_API_KEY`` (else
``OPENAI_API_KEY``; a local server needs none) and is never written anywhere.

Option scoring uses vLLM's prompt log-probabilities on chat completions: the request followed by
an assistant message holding the option (``continue_final_message``, no generation prompt),
``prompt_logprobs=0`` and ``return_token_ids``; the option's log-likelihood is the sum over the
tokens after the prompt with its generation prompt (found by a second call, which only counts
tokens). Chat rather than ``/completions`` with ``echo``: completions take no images. Servers
without prompt log-probabilities (transformers serve, hosted APIs) raise :class:`CannotScore`.

The client is the ``openai`` package, the reference client of this API: its retries, backoff,
``Retry-After`` handling, timeouts and typed errors are used as they are, not written again.
"""

from __future__ import annotations

import base64
import io
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

from mmsoc.core.io import UsageError
from mmsoc.models.base import Audio, CannotScore, GenerationSettings, Image, OptionScores, Request, Text, Video
from mmsoc.models.registry import ModelEntry, ModelOptions

API_KEY_VARIABLES = ("MMSOC_API_KEY", "OPENAI_API_KEY")
VIDEO_FRAMES = 8
"""Frames sampled uniformly from each video (or frame folder) and sent as images."""
JPEG_QUALITY = 90
STANDARD_FIELDS = ("max_tokens", "seed", "temperature", "top_p")
"""Call fields of the OpenAI API itself; any others (vLLM's) travel as extra body fields."""


class RequestFailed(OSError):
    """A call to the server failed for good (after its retries), or the server refused it (``status``)."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


def api_key() -> str:
    """The first of ``MMSOC_API_KEY``, ``OPENAI_API_KEY`` that is set; servers without keys accept any."""
    return next((os.environ[name] for name in API_KEY_VARIABLES if os.environ.get(name)), "EMPTY")


def image_url(path: str) -> str:
    """The image file as a data URL (its own bytes, with the MIME type of the format PIL finds)."""
    from PIL import Image as PILImage

    with open(path, "rb") as handle:
        data = handle.read()
    with PILImage.open(io.BytesIO(data)) as image:
        mime = PILImage.MIME.get(image.format or "", "image/png")
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def frame_urls(path: str, frames: int = VIDEO_FRAMES) -> list[str]:
    """Uniformly sampled frames of a video file or frame folder, each a JPEG data URL."""
    from PIL import Image as PILImage

    from mmsoc.media.decode import read_frames

    urls = []
    for frame in read_frames(path, num_frames=frames):
        buffer = io.BytesIO()
        PILImage.fromarray(frame).save(buffer, format="JPEG", quality=JPEG_QUALITY)
        urls.append(f"data:image/jpeg;base64,{base64.b64encode(buffer.getvalue()).decode()}")
    return urls


def content(request: Request) -> list[dict[str, Any]]:
    """The request's parts as chat content parts, in order; unreadable media raise ValueError naming it."""
    from mmsoc.media.base import MediaError

    parts: list[dict[str, Any]] = []
    for part in request.parts:
        try:
            if isinstance(part, Text):
                parts.append({"type": "text", "text": part.text})
            elif isinstance(part, Image):
                parts.append({"type": "image_url", "image_url": {"url": image_url(part.path)}})
            elif isinstance(part, Video):
                parts += [{"type": "image_url", "image_url": {"url": url}} for url in frame_urls(part.path)]
            elif isinstance(part, Audio):
                raise ValueError(f"{part.path}: the openai backend sends no audio")
        except (OSError, MediaError) as err:
            raise ValueError(f"cannot read {getattr(part, 'path', '')}: {err}") from None
    return parts


def decoding(settings: GenerationSettings, request: Request) -> dict[str, Any]:
    """Sampling fields of a call: greedy -> temperature 0; nucleus -> temperature and top-p; the request's seed."""
    fields: dict[str, Any] = {"max_tokens": settings.max_new_tokens, "seed": request.rng_seed}
    if settings.greedy:
        fields["temperature"] = 0.0
    else:
        fields.update(temperature=settings.temperature, top_p=settings.top_p)
    return fields


class OpenAIModel:
    """Chat completions on a bounded pool of concurrent calls; answers in request order."""

    modalities = frozenset({"text", "image", "video"})

    def __init__(self, name: str, api_base: str, concurrency: int = 8, timeout: float = 600.0, retries: int = 6):
        try:
            import openai
        except ImportError:
            raise UsageError("the openai backend needs the openai package (pip install openai==3.57.0)") from None
        if concurrency < 1 or retries < 0 or timeout <= 0:
            raise ValueError("--concurrency must be >= 1, --retries >= 0 and --request-timeout > 0")
        self.name, self.api_base, self.retries = name, api_base, retries
        self._errors = openai
        self.client = openai.OpenAI(base_url=api_base, api_key=api_key(), max_retries=retries, timeout=timeout)
        self.pool = ThreadPoolExecutor(concurrency, thread_name_prefix="mmsoc-api")
        self._answered: dict[tuple[Request, GenerationSettings], str] = {}
        self._cannot_score: str | None = None
        self._check_served()

    def _check_served(self) -> None:
        """Fail early, in one line, when the server is unreachable, refuses the key or serves another model."""
        try:
            served = [model.id for model in self.client.models.list()]
        except self._errors.APIStatusError as err:
            if err.status_code in (401, 403):
                raise UsageError(self._refused_key(err)) from None
            return  # some servers list no models: the first call will tell
        except self._errors.APIConnectionError as err:
            raise UsageError(f"cannot reach {self.api_base} ({err}); start the server or correct --api-base") from None
        if served and self.name not in served:
            raise UsageError(
                f"{self.api_base} serves {', '.join(served)}, not {self.name!r}; pass --model openai:{served[0]}"
            )

    def _refused_key(self, err: Any) -> str:
        return (
            f"{self.api_base} refused the API key ({err.status_code}); set "
            f"{' or '.join(API_KEY_VARIABLES)} to a key it accepts"
        )

    def _call(self, where: str, messages: list[dict[str, Any]], fields: dict[str, Any]) -> Any:
        """One chat completion; failures after the client's retries become RequestFailed naming ``where``."""
        errors = self._errors
        known = {key: value for key, value in fields.items() if key in STANDARD_FIELDS}
        extra = {key: value for key, value in fields.items() if key not in STANDARD_FIELDS}
        try:
            return self.client.chat.completions.create(
                model=self.name,
                messages=messages,  # type: ignore[arg-type]
                extra_body=extra or None,
                **known,
            )
        except (errors.AuthenticationError, errors.PermissionDeniedError) as err:
            raise UsageError(self._refused_key(err)) from None
        except errors.APIStatusError as err:
            retried = err.status_code in (408, 409, 429) or err.status_code >= 500
            after = f" after {self.retries + 1} attempts" if retried else ""
            raise RequestFailed(
                f"{where}: the server answered {err.status_code}{after}: {_detail(err)}", err.status_code
            ) from None
        except errors.APIConnectionError as err:
            raise RequestFailed(
                f"{where}: no answer from {self.api_base} after {self.retries + 1} attempts ({err.message})"
            ) from None

    def _where(self, request: Request) -> str:
        seed = "" if request.seed is None else f", seed {request.seed}"
        return f"openai:{self.name} request for task {request.task!r} item {request.id!r}{seed}"

    def _user(self, request: Request) -> dict[str, Any]:
        """The request as one user message; unreadable media raise ValueError naming the item."""
        try:
            return {"role": "user", "content": content(request)}
        except ValueError as err:
            raise ValueError(f"{self._where(request)}: {err}") from None

    def _answer(self, request: Request, settings: GenerationSettings) -> str:
        where = self._where(request)
        response = self._call(where, [self._user(request)], decoding(settings, request))
        if not response.choices:
            raise RequestFailed(f"{where}: the server answered with no choices")
        return (response.choices[0].message.content or "").strip()

    def _gather(self, jobs: Sequence[Callable[[], Any]]) -> tuple[list[Any], list[BaseException | None]]:
        """Run jobs on the pool; (results, errors) in job order (None where a job failed / succeeded)."""
        futures = [self.pool.submit(job) for job in jobs]
        results: list[Any] = []
        failures: list[BaseException | None] = []
        try:
            for future in futures:
                try:
                    results.append(future.result())
                    failures.append(None)
                except (OSError, ValueError, UsageError) as err:
                    results.append(None)
                    failures.append(err)
        except BaseException:  # interrupted: calls not yet started are dropped, not sent
            for future in futures:
                future.cancel()
            raise
        return results, failures

    def generate(self, requests: Sequence[Request], settings: GenerationSettings) -> list[str]:
        """Responses in request order. If a call fails, the others' answers are kept for the item-by-item
        retry of the evaluation loop (which then asks only for the failed one again) and the failure is raised."""
        keys = [(request, settings) for request in requests]
        todo = [request for request, _ in dict.fromkeys(keys) if (request, settings) not in self._answered]
        results, failures = self._gather([partial(self._answer, r, settings) for r in todo])
        for request, result, failure in zip(todo, results, failures):
            if failure is None:
                self._answered[(request, settings)] = result
        fatal = next((f for f in failures if isinstance(f, UsageError)), None)
        first = fatal or next((f for f in failures if f is not None), None)
        if first is not None:
            raise first
        answers = [self._answered[key] for key in keys]
        for key in set(keys):
            del self._answered[key]
        return answers

    # option scoring --------------------------------------------------------------------------
    def score_options(self, requests: Sequence[Request], options: Sequence[Sequence[str]]) -> list[OptionScores]:
        """Log-likelihood of each option as the assistant's reply (vLLM's prompt log-probabilities)."""
        if self._cannot_score:
            raise CannotScore(self._cannot_score)
        jobs: list[Callable[[], Any]] = []
        for request, opts in zip(requests, options):
            jobs.append(partial(self._prompt_tokens, request))
            jobs += [partial(self._option_tokens, request, option) for option in opts]
        results, failures = self._gather(jobs)
        first = next((f for f in failures if f is not None), None)
        if first is not None:
            if isinstance(first, CannotScore):
                self._cannot_score = str(first)
            raise first
        out, k = [], 0
        for request, opts in zip(requests, options):
            context, rows = results[k], results[k + 1 : k + 1 + len(opts)]
            k += 1 + len(opts)
            logliks = tuple(continuation_loglik(context, ids, logprobs, self._where(request)) for ids, logprobs in rows)
            out.append(OptionScores(logliks, tuple(len(o) for o in opts)))
        return out

    def _scoring_call(self, request: Request, messages: list[dict[str, Any]], fields: dict[str, Any]) -> Any:
        where = self._where(request)
        base = {"max_tokens": 1, "temperature": 0.0, "seed": request.rng_seed, "return_token_ids": True}
        try:
            return self._call(where, messages, {**base, **fields})
        except RequestFailed as err:
            if err.status is not None and 400 <= err.status < 500:  # the server refuses vLLM's fields
                raise CannotScore(self._no_logprobs(str(err))) from None
            raise

    def _no_logprobs(self, why: str) -> str:
        return (
            f"{self.api_base} does not return prompt log-probabilities ({why}); option scoring needs a "
            "server that does (vLLM); use --answer generate"
        )

    def _prompt_tokens(self, request: Request) -> tuple[int, list[int] | None]:
        """(length, token ids or None) of the request's prompt with the generation prompt."""
        response = self._scoring_call(request, [self._user(request)], {})
        ids = (response.model_extra or {}).get("prompt_token_ids")
        return int(response.usage.prompt_tokens if ids is None else len(ids)), ids

    def _option_tokens(self, request: Request, option: str) -> tuple[list[int] | None, list[Any]]:
        """(token ids or None, prompt log-probabilities) of the request followed by ``option`` as the reply."""
        messages = [self._user(request), {"role": "assistant", "content": [{"type": "text", "text": option}]}]
        response = self._scoring_call(
            request, messages, {"add_generation_prompt": False, "continue_final_message": True, "prompt_logprobs": 0}
        )
        extra = response.model_extra or {}
        if not extra.get("prompt_logprobs"):
            raise CannotScore(self._no_logprobs("its answers carry no prompt_logprobs"))
        return extra.get("prompt_token_ids"), extra["prompt_logprobs"]


def continuation_loglik(
    context: tuple[int, list[int] | None], ids: list[int] | None, logprobs: list[Any], where: str
) -> float:
    """Sum of the prompt log-probabilities of the tokens after the context.

    ``context`` is (length, token ids or None) of the prompt alone; ``ids`` the token ids of the
    prompt with the option (None when the server does not return them: then each position's entry
    must be the prompt token's alone, as ``prompt_logprobs=0`` gives). Where both id lists are
    known, the option starts after their common prefix (a tokenizer may merge across the boundary).
    """
    start, context_ids = context
    if ids is not None and context_ids is not None:
        start = next((i for i, (a, b) in enumerate(zip(context_ids, ids)) if a != b), min(len(context_ids), len(ids)))
    total = 0.0
    for position in range(start, len(logprobs)):
        entry = logprobs[position] or {}
        if ids is not None:
            token = entry.get(str(ids[position]), entry.get(ids[position]))
        else:
            token = next(iter(entry.values())) if len(entry) == 1 else None
        if token is None:
            raise ValueError(f"{where}: the server's prompt_logprobs lack the prompt token at position {position}")
        total += float(token["logprob"] if isinstance(token, dict) else token.logprob)
    return total


def _detail(err: Any) -> str:
    """The server's own error message, short."""
    body = getattr(err, "body", None)
    if isinstance(body, dict):
        body = body.get("message") or body.get("detail") or body.get("error") or body
    return str(body or err.message)[:300]


def build(arg: str, options: ModelOptions) -> OpenAIModel:
    if not arg:
        raise ValueError("name the served model: --model openai:NAME (as the server's /v1/models lists it)")
    if not options.api_base:
        raise ValueError("--model openai:NAME needs --api-base URL (e.g. http://localhost:8000/v1)")
    return OpenAIModel(arg, options.api_base, options.concurrency, options.timeout, options.retries)


MODEL = ModelEntry(
    "openai",
    "mmsoc.models.backends.openai:build",
    frozenset({"text", "image", "video"}),
    "'openai:NAME' with --api-base URL: a model on an OpenAI-compatible server (vLLM, SGLang, "
    "transformers serve); key from $MMSOC_API_KEY or $OPENAI_API_KEY",
    remote=True,
)
