"""What every backend adapter shares: the events it yields, its errors, and sending the request."""

from __future__ import annotations

import functools
import json
import math
import re
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from typing import Any, Protocol, TypeVar, cast

import anyio
import attrs
import httpx
from httpx_sse import SSEError

from ..._surrogates import has_lone_surrogate, replace_lone_surrogates
from ..aiohttp_transport import BackendClient
from ..params import GenerationParams, backend_fields, kind_rules, place
from .sse import SSEFrames, check_event_stream

__all__ = [
    "drain",
    "DRAIN_SECONDS",
    "Answer",
    "Backend",
    "BackendError",
    "Decoding",
    "Finish",
    "Frames",
    "Piece",
    "Usage",
    "clean_text",
    "cut_logprobs",
    "encode_json",
    "finite",
    "loads_object",
    "stop_reason_of",
    "usage_of",
]

#: How long the rest of a finished backend stream is read, so the connection can be
#: reused; a backend that keeps it open longer is cut off (the answer is complete).
DRAIN_SECONDS = 1.0

_T = TypeVar("_T")


@attrs.frozen
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def counts(self) -> tuple[int, int, int]:
        """The prompt, completion and total token counts."""
        return (
            self.prompt_tokens,
            self.completion_tokens,
            self.prompt_tokens + self.completion_tokens,
        )

    def to_openai(self) -> dict[str, int]:
        prompt, completion, total = self.counts()
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": total}


@attrs.frozen
class Piece:
    """A piece of generated text (and, where the backend gives them, its token logprobs)."""

    text: str
    logprobs: tuple[dict[str, Any], ...] = ()


@attrs.frozen
class Finish:
    """The backend finished: ``reason`` is ``"length"`` (token limit) or ``"stop"``;
    ``usage`` is ``None`` when the backend did not count; ``stop_reason`` is the stop
    string (or, from vLLM, the stop token id) the backend matched, when it says."""

    reason: str
    usage: Usage | None = None
    stop_reason: str | int | None = None


@attrs.frozen
class Answer:
    """The backend's whole answer: its text, token logprobs and how it finished."""

    text: str
    logprobs: list[dict[str, Any]]
    finish: Finish


def stop_reason_of(value: Any) -> str | int | None:
    """A backend's matched stop string or token id (``None`` for anything else)."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None


#: How much of a backend's error answer is kept for the log.
_DETAIL_LIMIT = 1000


class BackendError(Exception):
    """The backend failed; ``status`` is the HTTP status to answer with (502 or 504, or 400
    when the request cannot fit the model, with ``param`` the field). The message never
    holds the backend's URL or text; ``detail`` holds what the backend wrote (cut short),
    for the log only, and only with ``--log-prompts``; ``backend_status`` is the error
    status the backend answered with, if it answered one, and ``retry_after`` the seconds
    its ``Retry-After`` header asked for (``None``: none, or not a plain number of at most
    :data:`MAX_RETRY_AFTER`)."""

    def __init__(
        self,
        message: str,
        status: int = 502,
        param: str | None = None,
        detail: str = "",
        backend_status: int | None = None,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.param = param
        self.detail = detail
        self.backend_status = backend_status
        self.retry_after = retry_after

    @property
    def transient(self) -> bool:
        """Whether trying again may succeed: the backend failed, timed out or was busy
        (429), rather than refusing the request (another 4xx)."""
        if self.status < 500:
            return False
        code = self.backend_status
        return code is None or code >= 500 or code in (408, 429)


#: The longest ``Retry-After`` of a backend that is kept (seconds); a longer one is dropped.
MAX_RETRY_AFTER = 3600

_SECONDS = re.compile("[0-9]{1,4}")


def retry_after_of(value: str) -> int | None:
    """A ``Retry-After`` header's seconds when it is a plain number of at most
    :data:`MAX_RETRY_AFTER` (an HTTP date or anything else: ``None``)."""
    if _SECONDS.fullmatch(value) is None or int(value) > MAX_RETRY_AFTER:
        return None
    return int(value)


_JSON_HEADERS = {"content-type": "application/json"}


def _sender(
    client: httpx.AsyncClient, url: str, content: bytes
) -> Callable[[], Awaitable[httpx.Response]]:
    """What sends the generation request (its response streamed): straight to serve's
    backend client's transport, or through any other httpx client."""
    if isinstance(client, BackendClient):
        return functools.partial(client.post_json, url, content)
    request = httpx.Request(
        "POST",
        url,
        content=content,
        headers=_JSON_HEADERS,
        extensions={"timeout": client.timeout.as_dict()},
    )
    return functools.partial(client.send, request, stream=True)


def clean_text(text: str) -> str:
    """``text`` with any lone surrogate (which JSON allows and UTF-8 cannot carry) as U+FFFD."""
    return replace_lone_surrogates(text) if has_lone_surrogate(text) else text


def finite(value: Any) -> Any:
    """A logprob as OpenAI sends it: non-finite (NaN, -inf) as -9999.0, its "very unlikely"."""
    if isinstance(value, float) and not math.isfinite(value):
        return -9999.0
    return value


#: Compact JSON without NaN or Infinity: non-ASCII as is, or (for a lone surrogate) escaped.
_ENCODE_TEXT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_ENCODE_ASCII = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode


def encode_json(body: Any) -> bytes:
    """``body`` as UTF-8 JSON; a lone surrogate in it is sent escaped (``\\ud800``), which is
    valid JSON, rather than failing. Non-finite numbers raise :class:`ValueError`."""
    text = _ENCODE_TEXT(body)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _ENCODE_ASCII(body).encode("ascii")


def loads_object(data: str, what: str) -> dict[str, Any]:
    """One JSON object from the backend, or a :class:`BackendError` naming what was wrong."""
    try:
        value = json.loads(data)
    except ValueError:
        raise BackendError(f"the backend sent malformed {what}") from None
    if not isinstance(value, dict):
        raise BackendError(f"the backend sent malformed {what}: not a JSON object")
    if "error" in value and not any(k in value for k in ("choices", "content", "response")):
        raise BackendError("the backend reported an error")
    return value


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def usage_of(prompt_tokens: Any, completion_tokens: Any) -> Usage | None:
    """The backend's token counts, or ``None`` when it sent neither."""
    prompt, completion = _count(prompt_tokens), _count(completion_tokens)
    if prompt is None and completion is None:
        return None
    return Usage(prompt or 0, completion or 0)


def cut_logprobs(entries: Iterable[dict[str, Any]], top: int) -> list[dict[str, Any]]:
    """``entries`` with each token's alternatives cut to the ``top`` the client asked for."""
    return [
        {**entry, "top_logprobs": entry["top_logprobs"][:top]}
        if len(entry.get("top_logprobs", ())) > top
        else entry
        for entry in entries
    ]


def _byte_size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode())


def _cut(text: str, size: int) -> str:
    """The first ``size`` bytes of ``text`` (a character they split is left out)."""
    return text.encode()[:size].decode("utf-8", "ignore")


#: The largest whole-answer body read per byte of ``--max-output-bytes`` (JSON may
#: escape a byte of text as six), and with logprobs (each token's entry and its
#: alternatives), plus a megabyte for the rest of the body.
_BODY_PER_TEXT_BYTE = 8
_BODY_PER_TEXT_BYTE_WITH_LOGPROBS = 64
_BODY_SLACK = 1 << 20


def whole_body_limit(max_bytes: int | None, logprobs: bool) -> int:
    """The most bytes of a whole-answer body read for an answer of at most ``max_bytes``
    of text (a larger body is a :class:`BackendError`, never held in memory)."""
    per_byte = _BODY_PER_TEXT_BYTE_WITH_LOGPROBS if logprobs else _BODY_PER_TEXT_BYTE
    return (max_bytes if max_bytes is not None else 1 << 24) * per_byte + _BODY_SLACK


def _entries_within(entries: list[dict[str, Any]], size: int) -> list[dict[str, Any]]:
    """The token logprobs of the first ``size`` bytes of the answer (the token that
    crosses the limit included, as the piece that crosses it is when streaming)."""
    kept: list[dict[str, Any]] = []
    for entry in entries:
        if size < 0:
            break
        kept.append(entry)
        size -= len(entry.get("bytes") or ())
    return kept


class _Reading:
    """A context in which transport failures while reading a backend's answer are
    raised as :class:`BackendError` (a class: it is entered on every request)."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: BaseException | None, traceback: object) -> None:
        if isinstance(exc, httpx.TimeoutException):
            raise BackendError("the backend stopped sending (timed out)", 504) from None
        if isinstance(exc, SSEError):
            raise BackendError("the backend did not answer with an event stream") from None
        if isinstance(exc, httpx.HTTPError):
            raise BackendError("the backend connection failed") from None


_READING = _Reading()


class Frames(Protocol):
    """A byte stream cut into the data of its events: :meth:`feed` the bytes as they
    arrive, :meth:`end` at the stream's end."""

    def feed(self, block: bytes) -> list[str]: ...

    def end(self) -> list[str]: ...


class Decoding(ABC):
    """The events of one answer read in order: :meth:`step` adds what an event says to
    the answer; ``reason`` is set once the backend said how it ended, ``complete`` once
    nothing more is to come."""

    def __init__(self) -> None:
        self.reason: str | None = None
        self.usage: Usage | None = None
        self.stop: str | int | None = None
        self.complete = False

    @abstractmethod
    def step(self, data: str, texts: list[str], logprobs: list[dict[str, Any]]) -> None:
        """Read the event ``data``: a piece of the answer is one string appended to
        ``texts`` (its token logprobs to ``logprobs``); :class:`BackendError` when the
        event is malformed."""

    def finish(self) -> Finish:
        """How the answer ended; the stream ended early if the backend never said."""
        if self.reason is None:
            raise Backend.ended_early()
        return Finish(self.reason, self.usage, self.stop)


async def _within(next_item: Awaitable[_T]) -> _T | None:
    """``next_item``, or ``None`` if it does not come within :data:`DRAIN_SECONDS` (the
    answer is finished: the usage and end mark may follow, or nothing)."""
    with anyio.move_on_after(DRAIN_SECONDS):
        return await next_item
    return None


#: The media types of the backends' streams (Server-Sent Events, Ollama's lines).
_STREAM_TYPES = ("text/event-stream", "application/x-ndjson")


def _header(response: httpx.Response, name: str) -> str:
    """``response``'s header ``name`` (``""``: none), from the backend client's own
    response where it has one."""
    header = getattr(response.stream, "header", None)
    if header is not None:
        return cast("str", header(name))
    return cast("str", response.headers.get(name, ""))


def _streamed(response: httpx.Response) -> bool:
    """Whether ``response`` is a stream of events (by its media type)."""
    media = _header(response, "content-type").partition(";")[0].strip().lower()
    return media in _STREAM_TYPES


def _block_reader(response: httpx.Response) -> Callable[[], Awaitable[bytes]]:
    """What has arrived of ``response``'s body, one block per call (``b""`` at its end):
    straight from the backend client's connection where the body is not compressed,
    else through httpx's decoding."""
    read_block = getattr(response.stream, "read_block", None)
    if read_block is not None and not _header(response, "content-encoding"):
        return cast("Callable[[], Awaitable[bytes]]", read_block)
    blocks = response.aiter_bytes()

    async def next_block() -> bytes:
        async for block in blocks:
            if block:
                return block
        return b""

    return next_block


async def _rest(read: Callable[[], Awaitable[bytes]]) -> AsyncIterator[bytes]:
    while block := await read():
        yield block


async def drain(events: AsyncIterator[Any]) -> None:
    """Read what is left of a finished stream for at most :data:`DRAIN_SECONDS`."""

    try:
        with anyio.move_on_after(DRAIN_SECONDS):  # in this task: the connection stays its own
            async for _ in events:
                pass
    except (httpx.HTTPError, SSEError, ValueError):
        pass


class Backend(ABC):
    """One kind of completions server: the request it takes and the stream it answers with."""

    #: The path under the configured base URL.
    path: str
    #: Whether the backend can return token logprobs through this adapter.
    supports_logprobs = False
    #: What to do when the backend removed the special tokens of the output (the
    #: ``special_tokens_dropped`` warning): this backend's switch for them.
    special_tokens_advice = ""

    def __init__(self, base_url: str, default_max_tokens: int | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + self.path
        self.default_max_tokens = default_max_tokens

    #: The backend type's name (its column of :data:`~..params.FIELDS`).
    kind: str

    @abstractmethod
    def body(
        self, prompt: str, model: str, fields: dict[str, Any], stream: bool = True
    ) -> dict[str, Any]:
        """The JSON body of a generation request, streamed or answered whole (one JSON
        body); ``fields`` are the request's options under this backend's names
        (:func:`~..params.backend_fields`)."""

    @abstractmethod
    def decoding(self) -> Decoding:
        """A reader of one answer's events."""

    def frames(self) -> Frames:
        """A splitter of the response body into events (Server-Sent Events by default)."""
        return SSEFrames()

    def check(self, response: httpx.Response) -> None:
        """:class:`~httpx_sse.SSEError` when ``response`` is not the kind of stream
        :meth:`frames` reads."""
        check_event_stream(response)

    async def _data(self, response: httpx.Response) -> AsyncIterator[str]:
        self.check(response)
        frames = self.frames()
        async for block in response.aiter_bytes():
            for data in frames.feed(block):
                yield data
        for data in frames.end():
            yield data

    async def events(self, response: httpx.Response) -> AsyncIterator[Piece | Finish]:
        """The pieces of text, one per event that holds one, then one :class:`Finish`; a
        :class:`BackendError` when the stream is malformed; a stream that ends without
        finishing raises too. Once finished, the backend's next event is awaited for at
        most :data:`DRAIN_SECONDS` (the usage and end mark may follow)."""
        decoding = self.decoding()
        events = self._data(response)
        texts: list[str] = []
        logprobs: list[dict[str, Any]] = []
        while not decoding.complete:
            data: str | None
            try:
                if decoding.reason is None:
                    data = await events.__anext__()
                else:
                    data = await _within(events.__anext__())
            except StopAsyncIteration:
                break
            if data is None:
                break
            decoding.step(data, texts, logprobs)
            if texts:
                yield Piece("".join(texts), tuple(logprobs))
                texts.clear()
                logprobs.clear()
        yield decoding.finish()
        if decoding.complete:
            await drain(events)

    async def token_limit(self, client: httpx.AsyncClient, prompt: str, model: str) -> int | None:
        """The token limit to send when the request sets none (``None``: send none)."""
        return None

    def observe(self, prompt: str, usage: Usage | None) -> None:  # noqa: B027 (optional hook)
        """Learn from a finished answer's usage (for token estimates); nothing by default."""

    async def open(
        self,
        client: httpx.AsyncClient,
        prompt: str,
        model: str,
        params: GenerationParams,
        body: Mapping[str, Any],
        stops: tuple[str, ...] = (),
        preserve: tuple[str, ...] = (),
        stream: bool = True,
    ) -> httpx.Response:
        """Send the request and check the status; the caller must ``aclose()`` the response.
        ``preserve`` are the special tokens the answer may hold (to be sent as text);
        ``stream``: ask for a stream of events, else for the whole answer in one body
        (which the backend sends once the answer is complete)."""
        fields = backend_fields(self.kind, body, params, stops, preserve)
        if params.token_limit is None:
            limit = await self.token_limit(client, prompt, model)
            if limit is not None:
                place(fields, kind_rules(self.kind)["max_tokens"].name, limit)
        try:
            content = encode_json(self.body(prompt, model, fields, stream))
        except ValueError:
            raise BackendError(
                "the request holds a number JSON cannot carry (NaN or Infinity)", 400
            ) from None
        send = _sender(client, self.url, content)
        try:
            try:
                response = await send()
            except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError):
                # A kept-alive connection the backend had already closed: once more, anew.
                response = await send()
        except httpx.TimeoutException:
            raise BackendError("the backend did not answer in time", 504) from None
        except httpx.HTTPError:
            raise BackendError("cannot reach the backend") from None
        if response.status_code >= 400:
            retry_after = retry_after_of(_header(response, "retry-after"))
            detail = ""
            try:
                async for piece in response.aiter_text():
                    detail += piece
                    if len(detail) >= _DETAIL_LIMIT:
                        break
            except httpx.HTTPError:
                pass
            finally:
                await response.aclose()
            raise BackendError(
                f"the backend answered HTTP {response.status_code}",
                detail=clean_text(detail[:_DETAIL_LIMIT]),
                backend_status=response.status_code,
                retry_after=retry_after,
            )
        return response

    async def stream(
        self, response: httpx.Response, max_bytes: int | None = None
    ) -> AsyncIterator[Piece | Finish]:
        """:meth:`events`, with transport failures turned into :class:`BackendError`; past
        ``max_bytes`` of text the answer ends there (``finish_reason`` ``length``)."""
        left = max_bytes if max_bytes is not None else -1
        with _READING:
            async for event in self.events(response):
                if left >= 0 and isinstance(event, Piece):
                    size = _byte_size(event.text)
                    if size > left:
                        yield Piece(_cut(event.text, left), event.logprobs)
                        yield Finish("length", None)
                        return
                    left -= size
                yield event

    async def read(
        self,
        response: httpx.Response,
        max_bytes: int | None = None,
        top: int | None = None,
        whole: bool = False,
    ) -> Answer:
        """The whole answer of :meth:`stream` (the same text, logprobs and finish), read
        in blocks as they arrive, each block's events decoded in one loop; ``top``: the
        client asked for logprobs with that many alternatives (text without logprobs is
        a :class:`BackendError`). ``whole``: the request was sent with ``stream=False``,
        so the answer is one JSON body, read as one event (a backend that streams anyway,
        as its media type says, is read as a stream)."""
        with _READING:
            if whole and not _streamed(response):
                return await self._read_whole(response, max_bytes, top)
            return await self._read(response, max_bytes, top)

    async def _read_whole(
        self, response: httpx.Response, max_bytes: int | None, top: int | None
    ) -> Answer:
        read = _block_reader(response)
        limit = whole_body_limit(max_bytes, top is not None)
        blocks: list[bytes] = []
        size = 0
        while block := await read():
            size += len(block)
            if size > limit:
                raise BackendError(f"the backend's answer is over {limit} bytes")
            blocks.append(block)
        decoding = self.decoding()
        texts: list[str] = []
        logprobs: list[dict[str, Any]] = []
        decoding.step(b"".join(blocks).decode("utf-8", "replace"), texts, logprobs)
        finish = decoding.finish()
        text = "".join(texts)
        if max_bytes is not None and _byte_size(text) > max_bytes:
            text, finish = _cut(text, max_bytes), Finish("length", None)
            logprobs = _entries_within(logprobs, max_bytes)
        if top is not None and text and not logprobs:
            raise self.no_logprobs()
        return Answer(text, self._top(logprobs, top), finish)

    async def _read(
        self, response: httpx.Response, max_bytes: int | None, top: int | None
    ) -> Answer:
        self.check(response)
        decoding = self.decoding()
        frames = self.frames()
        read = _block_reader(response)
        texts: list[str] = []
        logprobs: list[dict[str, Any]] = []
        left = max_bytes if max_bytes is not None else -1
        checked = left >= 0 or top is not None  # each piece is looked at
        ended = False
        while not ended:
            if decoding.reason is None:
                block = await read()
            else:
                finished = await _within(read())
                if finished is None:
                    break
                block = finished
            if block:
                batch = frames.feed(block)
            else:
                batch, ended = frames.end(), True
            for data in batch:
                if not checked:
                    decoding.step(data, texts, logprobs)
                else:
                    count, entries = len(texts), len(logprobs)
                    decoding.step(data, texts, logprobs)
                    if len(texts) > count:
                        text = texts[count] = "".join(texts[count:])
                        del texts[count + 1 :]
                        limited = left >= 0 and _byte_size(text) > left
                        if limited:
                            text = texts[count] = _cut(text, left)
                        elif left >= 0:
                            left -= _byte_size(text)
                        if top is not None and text and len(logprobs) == entries:
                            raise self.no_logprobs()
                        if limited:
                            finish = Finish("length", None)
                            return Answer("".join(texts), self._top(logprobs, top), finish)
                if decoding.complete:
                    break
            if decoding.complete:
                break
        finish = decoding.finish()
        if decoding.complete:
            await drain(_rest(read))
        return Answer("".join(texts), self._top(logprobs, top), finish)

    @staticmethod
    def _top(logprobs: list[dict[str, Any]], top: int | None) -> list[dict[str, Any]]:
        return logprobs if top is None else cut_logprobs(logprobs, top)

    @staticmethod
    def no_logprobs() -> BackendError:
        return BackendError("the backend sent no logprobs with the answer's tokens")

    @staticmethod
    def ended_early() -> BackendError:
        return BackendError("the backend stream ended before the answer was complete")
