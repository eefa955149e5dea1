"""What every backend adapter shares: the events it yields, its errors, and sending the request."""

from __future__ import annotations

import json
import math
import re
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

import anyio
import attrs
import httpx
from httpx_sse import SSEError

from ..aiohttp_transport import BackendClient
from ..params import FIELDS, GenerationParams, backend_fields, place

__all__ = [
    "drain",
    "DRAIN_SECONDS",
    "Backend",
    "BackendError",
    "Finish",
    "Piece",
    "Usage",
    "clean_text",
    "encode_json",
    "finite",
    "loads_object",
    "stop_reason_of",
    "usage_of",
]

#: How long the rest of a finished backend stream is read, so the connection can be
#: reused; a backend that keeps it open longer is cut off (the answer is complete).
DRAIN_SECONDS = 1.0

_SURROGATE = re.compile("[\ud800-\udfff]")


@attrs.frozen
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def to_openai(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
        }


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
    status the backend answered with, if it answered one."""

    def __init__(
        self,
        message: str,
        status: int = 502,
        param: str | None = None,
        detail: str = "",
        backend_status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.param = param
        self.detail = detail
        self.backend_status = backend_status

    @property
    def transient(self) -> bool:
        """Whether trying again may succeed: the backend failed, timed out or was busy
        (429), rather than refusing the request (another 4xx)."""
        if self.status < 500:
            return False
        code = self.backend_status
        return code is None or code >= 500 or code in (408, 429)


_JSON_HEADERS = {"content-type": "application/json"}


def _send_stream(
    client: httpx.AsyncClient,
) -> Callable[[httpx.Request], Awaitable[httpx.Response]]:
    async def send(request: httpx.Request) -> httpx.Response:
        return await client.send(request, stream=True)

    return send


def clean_text(text: str) -> str:
    """``text`` with any lone surrogate (which JSON allows and UTF-8 cannot carry) as U+FFFD."""
    if text.isascii():
        return text
    return _SURROGATE.sub("\ufffd", text)


def finite(value: Any) -> Any:
    """A logprob as OpenAI sends it: non-finite (NaN, -inf) as -9999.0, its "very unlikely"."""
    if isinstance(value, float) and not math.isfinite(value):
        return -9999.0
    return value


def encode_json(body: Any) -> bytes:
    """``body`` as UTF-8 JSON; a lone surrogate in it is sent escaped (``\\ud800``), which is
    valid JSON, rather than failing. Non-finite numbers raise :class:`ValueError`."""
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(body, separators=(",", ":"), allow_nan=False).encode("ascii")


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
    def body(self, prompt: str, model: str, fields: dict[str, Any]) -> dict[str, Any]:
        """The JSON body of a streaming generation request; ``fields`` are the request's
        options under this backend's names (:func:`~..params.backend_fields`)."""

    @abstractmethod
    def events(self, response: httpx.Response) -> AsyncIterator[Piece | Finish]:
        """The pieces of text, then one :class:`Finish`; a :class:`BackendError` when the
        stream is malformed; a stream that ends without finishing raises too."""

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
    ) -> httpx.Response:
        """Send the request and check the status; the caller must ``aclose()`` the response.
        ``preserve`` are the special tokens the answer may hold (to be sent as text)."""
        fields = backend_fields(self.kind, body, params, stops, preserve)
        if params.token_limit is None:
            limit = await self.token_limit(client, prompt, model)
            if limit is not None:
                place(fields, FIELDS["max_tokens"].rule(self.kind).name, limit)
        try:
            content = encode_json(self.body(prompt, model, fields))
        except ValueError:
            raise BackendError(
                "the request holds a number JSON cannot carry (NaN or Infinity)", 400
            ) from None
        request = httpx.Request(
            "POST",
            self.url,
            content=content,
            headers=_JSON_HEADERS,
            extensions={"timeout": client.timeout.as_dict()},
        )
        send = client.open_stream if isinstance(client, BackendClient) else _send_stream(client)
        try:
            try:
                response = await send(request)
            except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError):
                # A kept-alive connection the backend had already closed: once more, anew.
                response = await send(request)
        except httpx.TimeoutException:
            raise BackendError("the backend did not answer in time", 504) from None
        except httpx.HTTPError:
            raise BackendError("cannot reach the backend") from None
        if response.status_code >= 400:
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
            )
        return response

    async def stream(
        self, response: httpx.Response, max_bytes: int | None = None
    ) -> AsyncIterator[Piece | Finish]:
        """:meth:`events`, with transport failures turned into :class:`BackendError`; past
        ``max_bytes`` of text the answer ends there (``finish_reason`` ``length``)."""
        left = max_bytes if max_bytes is not None else -1
        try:
            async for event in self.events(response):
                if left >= 0 and isinstance(event, Piece):
                    size = len(event.text) if event.text.isascii() else len(event.text.encode())
                    if size > left:
                        cut = event.text.encode()[:left].decode("utf-8", "ignore")
                        yield Piece(cut, event.logprobs)
                        yield Finish("length", None)
                        return
                    left -= size
                yield event
        except httpx.TimeoutException:
            raise BackendError("the backend stopped sending (timed out)", 504) from None
        except SSEError:
            raise BackendError("the backend did not answer with an event stream") from None
        except httpx.HTTPError:
            raise BackendError("the backend connection failed") from None

    @staticmethod
    def ended_early() -> BackendError:
        return BackendError("the backend stream ended before the answer was complete")
