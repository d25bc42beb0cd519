"""What the openai backend reads of an OpenAI-compatible server's replies, checked before it is used.

The ``openai`` client builds its response objects without validating them and has no fields for vLLM's
``prompt_logprobs`` or token ids, so each reply's body is read here, strictly (no value coerced into another
type), against the part of it the call needs: a written answer (exactly one choice whose message content is a
string or a list of content parts), a prompt's length (its token ids or the usage's count), an option's prompt
log-probabilities (finite numbers, one position per token id), the models listed and a ``/tokenize`` count.
A reply that does not fit is a :class:`MalformedReply`: its item fails with the reason, and it is not asked
again (another try gets the same answer from the same server).
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ConfigDict, FiniteFloat, NonNegativeInt, ValidationError, model_validator

from mmsoc.models.backends.api_limits import RequestFailed

SHOWN_CHARS = 160
"""Longest part of a server's value quoted in a reason."""


class MalformedReply(RequestFailed):
    """The server answered 200 with a body that is not what the call reads."""


class _Read(BaseModel):
    """A part of a reply: its fields as the server must send them; fields we do not read are ignored."""

    model_config = ConfigDict(strict=True, frozen=True, extra="ignore")


class ContentPart(_Read):
    """One part of a message's content; a ``text`` part must carry its text."""

    type: str
    text: str | None = None

    @model_validator(mode="after")
    def _text_has_text(self) -> ContentPart:
        if self.type == "text" and self.text is None:
            raise ValueError("a text part without its text")
        return self


class Message(_Read):
    content: str | list[ContentPart] | None


class Choice(_Read):
    message: Message


class WrittenAnswer(_Read):
    """A generation call's reply: one choice (one was asked for), whose content is the answer."""

    choices: list[Choice]

    @model_validator(mode="after")
    def _one_answer(self) -> WrittenAnswer:
        if len(self.choices) != 1:
            raise ValueError(f"one choice was asked for, the reply has {len(self.choices)}")
        content = self.choices[0].message.content
        if content is None:
            raise ValueError("the reply's message has no content (null)")
        if isinstance(content, list) and not any(part.type == "text" for part in content):
            raise ValueError(f"the reply's content parts hold no text (types: {', '.join(p.type for p in content)})")
        return self

    def text(self) -> str:
        """The answer, stripped: the content string, or its text parts joined."""
        content = self.choices[0].message.content
        if isinstance(content, str):
            return content.strip()
        return "".join(part.text or "" for part in content or () if part.type == "text").strip()


class Usage(_Read):
    prompt_tokens: NonNegativeInt


class PromptLength(_Read):
    """A scoring call's reply on the prompt alone: its token ids (vLLM's ``return_token_ids``) or its count."""

    prompt_token_ids: list[NonNegativeInt] | None = None
    usage: Usage | None = None

    @model_validator(mode="after")
    def _counted(self) -> PromptLength:
        if self.prompt_token_ids is None and self.usage is None:
            raise ValueError("the reply has neither prompt_token_ids nor usage.prompt_tokens")
        return self

    @property
    def length(self) -> int:
        if self.prompt_token_ids is not None:
            return len(self.prompt_token_ids)
        assert self.usage is not None  # checked above
        return self.usage.prompt_tokens


class TokenLogprob(_Read):
    logprob: FiniteFloat


class PromptLogprobs(_Read):
    """A scoring call's reply on the prompt with an option: per position, the log-probabilities of the tokens
    vLLM reports (``None`` at the first), and the prompt's token ids where the server returns them."""

    prompt_logprobs: list[dict[str, TokenLogprob] | None] | None = None
    prompt_token_ids: list[NonNegativeInt] | None = None

    @model_validator(mode="after")
    def _one_position_per_token(self) -> PromptLogprobs:
        ids, logprobs = self.prompt_token_ids, self.prompt_logprobs
        if ids is not None and logprobs and len(ids) != len(logprobs):
            raise ValueError(f"{len(logprobs)} prompt_logprobs positions for {len(ids)} prompt_token_ids")
        return self


class ServedModel(_Read):
    id: str


class ServedModels(_Read):
    """``GET /models``."""

    data: list[ServedModel]


class TokenCount(_Read):
    """vLLM's ``POST /tokenize``."""

    count: NonNegativeInt


Shape = TypeVar("Shape", bound=_Read)


def read_reply(shape: type[Shape], body: bytes | object, where: str) -> Shape:
    """``body`` (the reply's bytes, or JSON the client parsed) as ``shape``, or MalformedReply naming ``where``
    and the first field that does not fit."""
    try:
        if isinstance(body, bytes):
            return shape.model_validate_json(body)
        return shape.model_validate(body)
    except ValidationError as err:
        raise MalformedReply(f"{where}: malformed reply: {_first(err)}") from None


def _first(err: ValidationError) -> str:
    """The first problem pydantic found, short: where in the reply, what is wrong, the value (cut)."""
    problems = err.errors(include_url=False)
    first = problems[0]
    where = "".join(f"{step}: " if k == len(first["loc"]) - 1 else f"{step}." for k, step in enumerate(first["loc"]))
    if first["type"] == "value_error":  # one of our checks: its message says it all
        return f"{where}{first['ctx']['error']}"
    value = "" if first["type"] == "missing" else f" (got {str(first.get('input'))[:SHOWN_CHARS]!r})"
    more = f"; {len(problems) - 1} more" if len(problems) > 1 else ""
    return f"{where}{first['msg']}{value}{more}"
