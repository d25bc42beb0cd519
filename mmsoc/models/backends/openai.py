"""Any OpenAI-compatible chat server (vLLM, SGLang, transformers serve, a hosted API) behind the model contract.

``--model openai:NAME --api-base URL``: each request becomes one ``/chat/completions`` call with
one user message whose content parts follow the request's parts in order: text parts as text,
images and sampled video frames (``VIDEO_FRAMES`` uniform frames, JPEG) as base64 data URLs in
``image_url`` parts. Greedy decoding sends ``temperature=0``; sampling sends the run's
temperature and top-p; every call carries the request's own seed (:attr:`Request.rng_seed`), so
a server that seeds per request (vLLM, SGLang) answers the same whatever the batch or concurrency.

Calls run on a bounded pool of threads (``--concurrency``), those of one media group (the same
video, image, audio and leading text before the question) leader first, so that the server's prefix
cache (vLLM's automatic prefix caching, SGLang's radix cache) serves the others
(:mod:`~mmsoc.models.backends.api_dispatch`). With ``--max-context``, a call whose prompt text (counted
by the server's ``/tokenize`` where it has one, else estimated; media are not counted) with its new
tokens or longest option exceeds it is refused with a ValueError naming the item
(:class:`~mmsoc.models.backends.api_content.ContextBudget`).

Calls go through the ``openai`` client, the reference client of this API, whose retries (timeouts, connection errors,
408/409/429 and 5xx; ``--retries`` times, exponential backoff, ``Retry-After``) run in each call's own thread, so a
batch's calls retry together. A call that still fails raises :class:`RequestFailed` (an ``OSError``) naming the item;
the evaluation loop asks the batch's items again one by one, but an item answered or failed already is not sent again
(1 + ``--retries`` tries per item in all); the loop records the failure as a problem and a rerun asks again. Each reply
is read against the shape its call needs (:mod:`~mmsoc.models.backends.api_replies`); one that does not fit fails its
item with the reason, not retried, and the run goes on. ``--deadline``, ``--request-timeout`` (for a whole answer) and
``--max-response-bytes`` bound what a server that hangs, trickles or floods costs
(:mod:`~mmsoc.models.backends.api_limits`). The key comes from ``MMSOC_API_KEY`` (else ``OPENAI_API_KEY``; a local
server needs none) and is never written anywhere.

Option scoring uses vLLM's prompt log-probabilities on chat completions: the request followed by an assistant message
holding the option (``continue_final_message``, no generation prompt), ``prompt_logprobs=0`` and ``return_token_ids``;
the option's log-likelihood is the sum over the tokens after the prompt with its generation prompt (found by a second
call, which only counts tokens). Chat rather than ``/completions`` with ``echo``: completions take no images. Servers
without prompt log-probabilities (transformers serve, hosted APIs) raise :class:`CannotScore`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from mmsoc.core.io import UsageError
from mmsoc.models.backends import api_replies as replies
from mmsoc.models.backends.api_content import ContextBudget, content, continuation_loglik, decoding
from mmsoc.models.backends.api_dispatch import Call, Dispatcher, grouped, shared_prefix
from mmsoc.models.backends.api_limits import CallLimits, DeadlinePassed, Outcomes, RequestFailed
from mmsoc.models.backends.api_replies import Shape, read_reply
from mmsoc.models.base import CannotScore, GenerationSettings, OptionScores, Request
from mmsoc.models.registry import ModelEntry, ModelOptions

API_KEY_VARIABLES = ("MMSOC_API_KEY", "OPENAI_API_KEY")
STANDARD_FIELDS = ("max_tokens", "seed", "temperature", "top_p")
"""Call fields of the OpenAI API itself; any others (vLLM's) travel as extra body fields."""


def api_key() -> str:
    """The first of ``MMSOC_API_KEY``, ``OPENAI_API_KEY`` that is set; servers without keys accept any."""
    return next((os.environ[name] for name in API_KEY_VARIABLES if os.environ.get(name)), "EMPTY")


class OpenAIModel:
    """Chat completions on a bounded pool of concurrent calls, leader first per media group (the server's prefix
    cache); answers in request order. ``requests_sent``, ``prefix_leaders`` and ``prefix_followers`` count calls."""

    modalities = frozenset({"text", "image", "video"})

    def __init__(
        self,
        name: str,
        api_base: str,
        concurrency: int = 8,
        limits: CallLimits | None = None,
        max_context: int | None = None,
    ):
        try:
            import openai

            from mmsoc.models.backends._api_transport import http_client
        except ImportError:
            raise UsageError("the openai backend needs the openai package (pip install openai==3.57.0)") from None
        if concurrency < 1:
            raise ValueError("--concurrency must be >= 1")
        self.limits = limits or CallLimits()
        self.name, self.api_base, self.retries = name, api_base, self.limits.retries
        self._errors = openai
        self.client = openai.OpenAI(
            base_url=api_base,
            api_key=api_key(),
            max_retries=self.limits.retries,
            timeout=self.limits.timeout,
            http_client=http_client(self.limits),
        )
        self.dispatcher, self.concurrency = Dispatcher(concurrency), concurrency
        self.outcomes = Outcomes()
        self._cannot_score: str | None = None
        self._check_served()
        self.budget = None if max_context is None else ContextBudget(max_context, self._token_counter())

    @property
    def requests_sent(self) -> int:
        """Chat completions sent (one per generated answer; one per option and one per prompt when scoring)."""
        return self.dispatcher.sent

    @property
    def prefix_leaders(self) -> int:
        """Calls sent alone first of their media group, so that the server has computed the shared prefix."""
        return self.dispatcher.leaders

    @property
    def prefix_followers(self) -> int:
        """Calls sent once their group's leader had returned (the shared prefix on the server by then)."""
        return self.dispatcher.followers

    def runtime(self) -> dict[str, Any]:
        """The calls made and how they were ordered (for runtime.json)."""
        return {
            "path": "server",
            "why": self.description,
            "requests_sent": self.requests_sent,
            "prefix_leaders": self.prefix_leaders,
            "prefix_followers": self.prefix_followers,
            "concurrency": self.concurrency,
            **self.limits.to_json(),
        }

    @property
    def description(self) -> str:
        budget = self.budget.description if self.budget else "no --max-context"
        return f"openai:{self.name} at {self.api_base}, the calls of a media group leader first; {budget}"

    def _check_served(self) -> None:
        """Fail early, in one line, when the server is unreachable, refuses the key or serves another model."""
        try:
            listed = self.client.get("/models", cast_to=object)
        except self._errors.APIStatusError as err:
            if err.status_code in (401, 403):
                raise UsageError(self._refused_key(err)) from None
            return  # some servers list no models: the first call will tell
        except self._errors.APIConnectionError as err:
            raise UsageError(f"cannot reach {self.api_base} ({err}); start the server or correct --api-base") from None
        except RequestFailed as err:
            raise UsageError(f"{self.api_base}/models: {err}") from None
        try:
            served = [model.id for model in read_reply(replies.ServedModels, listed, "/models").data]
        except RequestFailed:
            return  # a list we cannot read: the first call will tell
        if served and self.name not in served:
            raise UsageError(
                f"{self.api_base} serves {', '.join(served)}, not {self.name!r}; pass --model openai:{served[0]}"
            )

    def _token_counter(self) -> Callable[[str, bool], int] | None:
        """Exact token counts from vLLM's ``POST /tokenize`` (beside ``/v1``), or None where the server has none."""
        url = self.api_base.rstrip("/").removesuffix("/v1") + "/tokenize"

        def count(text: str, special: bool) -> int:
            body = {"model": self.name, "prompt": text, "add_special_tokens": special}
            return read_reply(replies.TokenCount, self.client.post(url, cast_to=object, body=body), url).count

        try:
            count("a", True)
        except (self._errors.APIError, RequestFailed):
            return None
        return count

    def _refused_key(self, err: Any) -> str:
        keys = " or ".join(API_KEY_VARIABLES)
        return f"{self.api_base} refused the API key ({err.status_code}); set {keys} to a key it accepts"

    def _call(self, where: str, messages: list[Any], fields: dict[str, Any], shape: type[Shape]) -> Shape:
        """One chat completion, its reply read as ``shape``; failures after the client's retries become
        RequestFailed naming ``where``, a reply that does not fit ``shape`` MalformedReply (not retried)."""
        errors = self._errors
        known = {key: value for key, value in fields.items() if key in STANDARD_FIELDS}
        extra = {key: value for key, value in fields.items() if key not in STANDARD_FIELDS}
        try:
            raw = self.client.chat.completions.with_raw_response.create(
                model=self.name, messages=messages, extra_body=extra or None, **known
            )
        except RequestFailed as err:  # the deadline passed, or the answer was cut
            raise type(err)(f"{where}: {err}") from None
        except (errors.AuthenticationError, errors.PermissionDeniedError) as err:
            raise UsageError(self._refused_key(err)) from None
        except errors.APIStatusError as err:
            retried = err.status_code in (408, 409, 429) or err.status_code >= 500
            after = f" after {self.retries + 1} attempts" if retried else ""
            raise RequestFailed(
                f"{where}: the server answered {err.status_code}{after}: {_detail(err)}", err.status_code
            ) from None
        except errors.APIConnectionError as err:
            if self.limits.left() <= 0:
                raise DeadlinePassed(f"{where}: deadline: --deadline {self.limits.deadline:g} s passed") from None
            raise RequestFailed(
                f"{where}: no answer from {self.api_base} after {self.retries + 1} attempts ({err.message})"
            ) from None
        return read_reply(shape, raw.content, where)

    def _where(self, request: Request) -> str:
        seed = "" if request.seed is None else f", seed {request.seed}"
        return f"openai:{self.name} request for task {request.task!r} item {request.id!r}{seed}"

    # requests to calls ------------------------------------------------------------------------
    def _users(
        self, requests: Sequence[Request], new_tokens: int = 0, options: Sequence[Sequence[str]] = ()
    ) -> list[Any]:
        """Each request as one user message, the media of a group read once, checked against the context budget;
        or why it cannot be sent (a ValueError naming the item: unreadable media, over ``--max-context``)."""
        groups = grouped([shared_prefix(request) for request in requests])
        options = options or [()] * len(requests)
        jobs = [
            Call(partial(self._group_users, [requests[k] for k in group], [options[k] for k in group], new_tokens))
            for group in groups
        ]
        results, failures = self.dispatcher.run(jobs, counted=False)
        users: list[Any] = [None] * len(requests)
        for group, result, failure in zip(groups, results, failures):
            for k, user in zip(group, result or [failure] * len(group)):
                users[k] = user
        return users

    def _group_users(
        self, requests: Sequence[Request], options: Sequence[Sequence[str]], new_tokens: int
    ) -> list[dict[str, Any] | BaseException]:
        head = shared_prefix(requests[0]) or ()
        try:
            shared = content(head)
        except ValueError as err:
            return [ValueError(f"{self._where(request)}: {err}") for request in requests]
        return [self._user(request, shared, len(head), new_tokens, opts) for request, opts in zip(requests, options)]

    def _user(
        self, request: Request, shared: list[dict[str, Any]], skip: int, new_tokens: int, options: Sequence[str]
    ) -> dict[str, Any] | BaseException:
        """The request as one user message (``shared``: the content of its first ``skip`` parts), or why not."""
        where = self._where(request)
        try:
            user = {"role": "user", "content": [*shared, *content(request.parts[skip:])]}
        except ValueError as err:
            return ValueError(f"{where}: {err}")
        if self.budget is not None:
            try:
                self.budget.check(where, request.prompt, new_tokens, options)
            except ValueError as err:
                return err
            except (self._errors.APIError, RequestFailed) as err:
                return RequestFailed(f"{where}: {self.api_base} did not count its tokens ({err})")
        return user

    def _send(
        self, requests: Sequence[Request], users: Sequence[Any], calls_of: Callable[[int, Any], list[Callable[[], Any]]]
    ) -> tuple[list[list[Any]], list[BaseException | None]]:
        """Each request's call results and its first failure (None: none), the calls of each media group leader
        first; ``calls_of(k, user)``: the calls of request ``k`` (one chat completion each)."""
        calls: list[Call] = []
        owners: list[int] = []
        for k, (request, user) in enumerate(zip(requests, users)):
            if not isinstance(user, BaseException):
                jobs = calls_of(k, user)
                calls += [Call(job, shared_prefix(request)) for job in jobs]
                owners += [k] * len(jobs)
        results, failures = self.dispatcher.run(calls)
        out: list[list[Any]] = [[] for _ in requests]
        first = [user if isinstance(user, BaseException) else None for user in users]
        for k, result, failure in zip(owners, results, failures):
            first[k] = first[k] or failure
            out[k].append(result)
        return out, first

    def _ask(
        self,
        keys: Sequence[tuple[Any, ...]],
        users_of: Callable[[list[Any]], list[Any]],
        calls_of: Callable[[list[Any]], Callable[[int, Any], list[Callable[[], Any]]]],
        finish: Callable[[Any, list[Any]], Any],
    ) -> None:
        """Send the calls of the keys (request first) neither answered nor failed yet, and record what each came
        to: ``finish(key, its call results)``, or its first failure (ValueError from ``finish`` included)."""
        todo = self.outcomes.pending(keys)
        try:
            self.limits.check()
        except DeadlinePassed as err:
            for key in todo:
                self.outcomes.record(key, None, DeadlinePassed(f"{self._where(key[0])}: {err}"))
            return
        requests = [key[0] for key in todo]
        results, failures = self._send(requests, users_of(todo), calls_of(todo))
        for key, result, failure in zip(todo, results, failures):
            if failure is None:
                try:
                    result = finish(key, result)
                except ValueError as err:
                    failure = err
            self.outcomes.record(key, result, failure)

    def _answer(self, request: Request, user: dict[str, Any], settings: GenerationSettings) -> str:
        return self._call(self._where(request), [user], decoding(settings, request), replies.WrittenAnswer).text()

    def generate(self, requests: Sequence[Request], settings: GenerationSettings) -> list[str]:
        """Responses in request order. If a call fails, the others' answers are kept for the item-by-item
        retry of the evaluation loop (which then sends nothing again) and the failure is raised."""
        keys = [(request, settings) for request in requests]

        def calls_of(todo: list[Any]) -> Callable[[int, Any], list[Callable[[], Any]]]:
            return lambda k, user: [partial(self._answer, todo[k][0], user, settings)]

        self._ask(
            keys,
            lambda todo: self._users([key[0] for key in todo], settings.max_new_tokens),
            calls_of,
            lambda key, result: result[0],
        )
        return self.outcomes.take(keys)

    # option scoring --------------------------------------------------------------------------
    def score_options(self, requests: Sequence[Request], options: Sequence[Sequence[str]]) -> list[OptionScores]:
        """Log-likelihood of each option as the assistant's reply (vLLM's prompt log-probabilities)."""
        if self._cannot_score:
            raise CannotScore(self._cannot_score)
        keys = [(request, tuple(opts)) for request, opts in zip(requests, options)]

        def calls_of(todo: list[Any]) -> Callable[[int, Any], list[Callable[[], Any]]]:
            def calls(k: int, user: dict[str, Any]) -> list[Callable[[], Any]]:
                request, opts = todo[k]
                prompt = partial(self._prompt_tokens, request, user)
                return [prompt, *(partial(self._option_tokens, request, user, option) for option in opts)]

            return calls

        def finish(key: tuple[Request, tuple[str, ...]], results: list[Any]) -> OptionScores:
            (request, opts), (context, *rows) = key, results
            where = self._where(request)
            logliks = tuple(continuation_loglik(context, ids, logprobs, where) for ids, logprobs in rows)
            return OptionScores(logliks, tuple(len(o) for o in opts))

        self._ask(keys, lambda todo: self._users([k[0] for k in todo], options=[k[1] for k in todo]), calls_of, finish)
        try:
            return self.outcomes.take(keys)
        except CannotScore as err:
            self._cannot_score = str(err)
            raise

    def _scoring_call(
        self, request: Request, messages: list[dict[str, Any]], fields: dict[str, Any], shape: type[Shape]
    ) -> Shape:
        where = self._where(request)
        base = {"max_tokens": 1, "temperature": 0.0, "seed": request.rng_seed, "return_token_ids": True}
        try:
            return self._call(where, messages, {**base, **fields}, shape)
        except RequestFailed as err:
            if err.status is not None and 400 <= err.status < 500:  # the server refuses vLLM's fields
                raise CannotScore(self._no_logprobs(str(err))) from None
            raise

    def _no_logprobs(self, why: str) -> str:
        return (
            f"{self.api_base} does not return prompt log-probabilities ({why}); option scoring needs a "
            "server that does (vLLM); use --answer generate"
        )

    def _prompt_tokens(self, request: Request, user: dict[str, Any]) -> tuple[int, list[int] | None]:
        """(length, token ids or None) of the request's prompt with the generation prompt."""
        reply = self._scoring_call(request, [user], {}, replies.PromptLength)
        return reply.length, reply.prompt_token_ids

    def _option_tokens(self, request: Request, user: dict[str, Any], option: str) -> tuple[list[int] | None, list]:
        """(token ids or None, prompt log-probabilities) of the request followed by ``option`` as the reply."""
        messages = [user, {"role": "assistant", "content": [{"type": "text", "text": option}]}]
        fields = {"add_generation_prompt": False, "continue_final_message": True, "prompt_logprobs": 0}
        reply = self._scoring_call(request, messages, fields, replies.PromptLogprobs)
        if not reply.prompt_logprobs:
            raise CannotScore(self._no_logprobs("its answers carry no prompt_logprobs"))
        return reply.prompt_token_ids, reply.prompt_logprobs


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
    limits = CallLimits(options.timeout, options.retries, options.deadline, options.max_response_bytes)
    return OpenAIModel(arg, options.api_base, options.concurrency, limits, options.max_context)


MODEL = ModelEntry(
    "openai",
    build,
    frozenset({"text", "image", "video"}),
    "a model on an OpenAI-compatible server (vLLM, SGLang, transformers serve); key: $MMSOC_API_KEY or $OPENAI_API_KEY",
    remote=True,
    usage="openai:NAME (with --api-base URL)",
)
