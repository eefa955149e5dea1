"""One chat request's way through a completions backend, shared by ``serve`` and ``batch``.

A request body becomes a :class:`Prepared` request (formatter, generation options, the
prompt) or a :class:`Refusal`; the backend's answer is collected and parsed into a
``chat.completion`` body. The HTTP server and the batch command differ only in how
requests arrive and answers leave.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

import attrs
import httpx

from .._api import get_formatter
from .._errors import InvalidRequestError, UnknownModelError
from .._processors import Formatter
from ..granite3._cite_format import TOKENS_SKIPPED_NOTE
from .backends import Backend, Finish, Piece
from .backends.base import Answer, cut_logprobs
from .effort import effort_refusal
from .params import GenerationParams, chat_request, read_params
from .public import request_text, unknown_model_text
from .responses import completion, completion_json, openai_message

if TYPE_CHECKING:
    from ..release import Release

__all__ = [
    "SPECIAL_TOKENS_DROPPED",
    "Answer",
    "Prepared",
    "Refusal",
    "answer_events",
    "collect",
    "completion_body",
    "completion_bytes",
    "dropped_tokens_text",
    "open_answer",
    "parse_answer",
    "prepare",
    "read_answer",
    "text_stop",
]


class Refusal(Exception):
    """A request refused before any generation: the HTTP ``status``, the field ``param``
    at fault (if one is) and an OpenAI error ``code`` (if there is one)."""

    def __init__(
        self, status: int, message: str, param: str | None = None, code: str | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.param = param
        self.code = code


@attrs.define
class Prepared:
    """A request ready for the backend."""

    formatter: Formatter
    request: dict[str, Any]
    params: GenerationParams
    prompt: str
    backend_model: str
    #: The special tokens the answer may hold, which the backend is asked to print.
    preserve: tuple[str, ...] = ()


#: Granite's BOS and EOS token in every release: it ends the answer, never part of it.
_END_OF_TEXT = "<|end_of_text|>"

#: The code of the warning given when the backend removed the answer's special tokens.
SPECIAL_TOKENS_DROPPED = "special_tokens_dropped"


#: The answer tokens of each release met, by identity (a release is immutable; kept with
#: it, so an id is never another's), a handful per process: bounded all the same.
_ANSWER_TOKENS: dict[int, tuple[Release, tuple[str, ...]]] = {}
_MAX_RELEASES = 64


def _answer_tokens(formatter: Formatter) -> tuple[str, ...]:
    """The release's special tokens an answer may hold: all but its stop strings (the
    end of the answer) and the tokens the parser drops (worked out once per release)."""
    release = formatter.release
    if release is None:
        return ()
    kept = _ANSWER_TOKENS.get(id(release))
    if kept is not None and kept[0] is release:
        return kept[1]
    ends = {*release.stop_strings, *release.dropped_tokens, _END_OF_TEXT}
    tokens = tuple(token for token in release.special_tokens.tokens if token not in ends)
    if len(_ANSWER_TOKENS) >= _MAX_RELEASES:
        _ANSWER_TOKENS.clear()
    _ANSWER_TOKENS[id(release)] = (release, tokens)
    return tokens


def prepare(
    body: Any, backend: Backend, models: Mapping[str, str], max_prompt_chars: int
) -> Prepared:
    """``body`` (a decoded chat-completion request) checked and formatted; ``models`` maps
    the names served to the backend's names (empty: every installed model, as named)."""
    try:
        if not isinstance(body, dict):
            raise InvalidRequestError("the request body must be a JSON object")
        params = read_params(body, backend.kind)
    except InvalidRequestError as exc:
        raise Refusal(400, str(exc), exc.field) from None
    if models:
        backend_model = models.get(params.model)
        if backend_model is None:
            raise Refusal(404, unknown_model_text(params.model), "model", "model_not_found")
    else:
        backend_model = params.model
    try:
        formatter = get_formatter(params.model)
    except UnknownModelError as exc:
        raise Refusal(
            404, unknown_model_text(params.model, exc), "model", "model_not_found"
        ) from None
    if params.logprobs and not backend.supports_logprobs:
        raise Refusal(
            400, f"logprobs are not supported with the {backend.kind} backend", "logprobs"
        )
    if body.get("reasoning_effort") is not None:
        refusal = effort_refusal(formatter, params.model)
        if refusal is not None:
            raise Refusal(400, refusal, "reasoning_effort")
    request_body = chat_request(body)
    try:
        prompt = formatter.format(request_body)
    except InvalidRequestError as exc:
        raise Refusal(400, request_text(str(exc)), exc.field) from None
    except ValueError as exc:
        raise Refusal(400, request_text(str(exc))) from None
    if len(prompt) > max_prompt_chars:
        raise Refusal(
            413,
            f"the prompt is {len(prompt)} characters, over the limit of {max_prompt_chars}",
            "messages",
        )
    preserve = _answer_tokens(formatter)
    return Prepared(formatter, request_body, params, prompt, backend_model, preserve)


async def open_answer(
    client: httpx.AsyncClient, backend: Backend, prepared: Prepared, stream: bool = True
) -> httpx.Response:
    """Send ``prepared`` to the backend, asking for a stream of events or (``stream``
    false) the whole answer in one body; the caller must ``aclose()`` the response."""
    return await backend.open(
        client,
        prepared.prompt,
        prepared.backend_model,
        prepared.params,
        prepared.request,
        tuple(getattr(prepared.formatter, "stop_strings", ())),
        prepared.preserve,
        stream,
    )


def answer_events(
    backend: Backend, response: httpx.Response, prepared: Prepared, max_bytes: int | None
) -> AsyncIterator[Piece | Finish]:
    """The backend's events for ``prepared``, logprobs cut to what the request asked."""
    events = backend.stream(response, max_bytes)
    if prepared.params.logprobs:
        events = _with_logprobs(events, prepared.params.top_logprobs or 0)
    return events


async def _with_logprobs(
    events: AsyncIterator[Piece | Finish], top: int
) -> AsyncIterator[Piece | Finish]:
    """``events`` with each token's alternatives cut to the ``top`` the client asked for;
    text that comes without logprobs is a :class:`BackendError` (never an empty list)."""
    async for event in events:
        if isinstance(event, Piece):
            if event.text and not event.logprobs:
                raise Backend.no_logprobs()
            if any(len(entry.get("top_logprobs", ())) > top for entry in event.logprobs):
                event = Piece(event.text, tuple(cut_logprobs(event.logprobs, top)))
        yield event


async def read_answer(
    backend: Backend,
    response: httpx.Response,
    prepared: Prepared,
    max_bytes: int | None,
    whole: bool = False,
) -> Answer:
    """The whole answer for ``prepared``: what :func:`collect` makes of
    :func:`answer_events`, read in bulk (``Backend.read``); ``whole``: ``response``
    answers a request sent with ``stream=False`` (one JSON body)."""
    params = prepared.params
    top = (params.top_logprobs or 0) if params.logprobs else None
    return await backend.read(response, max_bytes, top, whole)


async def collect(events: AsyncIterator[Piece | Finish]) -> Answer:
    """All of ``events`` (read to their end, so the connection is reused)."""
    pieces: list[str] = []
    logprobs: list[dict[str, Any]] = []
    finish = None
    async for event in events:
        if isinstance(event, Piece):
            pieces.append(event.text)
            logprobs.extend(event.logprobs)
        else:
            finish = event
    if finish is None:
        raise Backend.ended_early()
    return Answer("".join(pieces), logprobs, finish)


def text_stop(finish: Finish) -> str | None:
    """The stop string the backend matched, for the parsed message (a token id is not
    text: it stays on the response's choice only)."""
    return finish.stop_reason if isinstance(finish.stop_reason, str) else None


def parse_answer(prepared: Prepared, text: str, stop: str | None) -> Any:
    """The parsed assistant message of the whole answer ``text``: a batch parse, or,
    when the backend matched a ``stop`` string, a stream of one chunk (the same
    message, with that string, as when streaming)."""
    if stop is None:
        return prepared.formatter.parse(text, prepared.request)
    parser = prepared.formatter.stream_parser(prepared.request)
    parser.feed(text)
    parser.close(stop_reason=stop)
    return parser.message


def dropped_tokens_text(message: Any, backend: Backend) -> str | None:
    """The warning for an answer whose special tokens the backend removed (else ``None``)."""
    if TOKENS_SKIPPED_NOTE not in getattr(message, "notes", ()):
        return None
    return (
        "the backend removed the special tokens of the answer, so its citations "
        f"cannot be located and none are returned: {backend.special_tokens_advice}"
    )


def _completion_parts(
    prepared: Prepared, message: Any, answer: Answer, warnings: list[dict[str, str]] | None
) -> tuple[Any, ...]:
    finish = answer.finish
    logprobs = answer.logprobs if prepared.params.logprobs else None
    message_data = openai_message(message)
    return (prepared.params.model, message_data, finish.reason, finish.usage, logprobs,
            finish.stop_reason, warnings)  # fmt: skip


def completion_body(
    prepared: Prepared,
    message: Any,
    answer: Answer,
    warnings: list[dict[str, str]] | None = None,
) -> dict[str, Any]:
    """The ``chat.completion`` body of a parsed answer."""
    return completion(*_completion_parts(prepared, message, answer, warnings))


def completion_bytes(
    prepared: Prepared,
    message: Any,
    answer: Answer,
    warnings: list[dict[str, str]] | None = None,
) -> bytes:
    """:func:`completion_body` as the JSON a response writes of it (serve's whole answer)."""
    return completion_json(*_completion_parts(prepared, message, answer, warnings))
