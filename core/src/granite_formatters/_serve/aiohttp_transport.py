"""The backend hop's HTTP client: httpx's client interface on aiohttp's connection pool.

The backend adapters speak httpx (requests, streamed responses, its errors); the wire is
aiohttp's client: its C HTTP parser (llhttp), keep-alive pool and flow control. A
streamed body comes out as whatever has arrived, however many HTTP chunks that is, so a
stream of small events costs one step per network read rather than one per token
(httpx's own transport, httpcore and h11, costs about 1.7 times the CPU per streamed
chunk; ``docs/performance.md``).

aiohttp's errors become httpx's: a connection refused is :class:`httpx.ConnectError`,
a slow connect :class:`httpx.ConnectTimeout`, a silent backend :class:`httpx.ReadTimeout`,
a malformed or cut answer :class:`httpx.RemoteProtocolError`, a lost connection
:class:`httpx.ReadError`. A response closed before its end closes its connection (which
is how the backend learns that a request was cancelled); one read to its end goes back
to the pool.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any

import aiohttp
import httpx

__all__ = ["AiohttpTransport", "BackendClient"]

#: Request headers aiohttp writes itself (from the URL and the body).
_OWN_HEADERS = frozenset({"host", "content-length", "transfer-encoding"})
_JSON_HEADERS = [("content-type", "application/json")]

#: How long an idle connection to the backend is kept for reuse, in seconds: less than
#: the 5 seconds after which the usual backends close an idle connection themselves
#: (uvicorn, under vLLM and SGLang; cpp-httplib, under llama.cpp's server), so a request is
#: not sent on a connection the backend is closing (aiohttp keeps one 15 seconds).
IDLE_KEEPALIVE_SECONDS = 4.0


def _httpx_error(exc: BaseException, reading: bool) -> httpx.HTTPError | None:
    """aiohttp's error ``exc`` as httpx's (``reading``: while the body is read), or
    ``None`` for anything else."""
    if isinstance(exc, aiohttp.ConnectionTimeoutError):
        return httpx.ConnectTimeout(str(exc) or "timed out connecting")
    if isinstance(exc, aiohttp.ServerTimeoutError | asyncio.TimeoutError):
        return httpx.ReadTimeout(str(exc) or "timed out reading the response")
    if isinstance(exc, aiohttp.ClientConnectorError):
        return httpx.ConnectError(str(exc))
    if isinstance(exc, aiohttp.ClientPayloadError | aiohttp.ClientResponseError):
        return httpx.RemoteProtocolError(str(exc))
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        if reading:
            return httpx.RemoteProtocolError(str(exc))
        return httpx.RemoteProtocolError("the server disconnected without a response")
    if isinstance(exc, aiohttp.InvalidURL | aiohttp.NonHttpUrlClientError):
        return httpx.UnsupportedProtocol(str(exc))
    if isinstance(exc, aiohttp.ClientError):
        return httpx.ReadError(str(exc) or type(exc).__name__)
    return None


class _AsHttpx:
    """A context in which aiohttp's errors are raised as httpx's (a class, not a
    generator-based context manager: it is entered on every request and read)."""

    __slots__ = ("reading",)

    def __init__(self, reading: bool) -> None:
        self.reading = reading

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: BaseException | None, traceback: object) -> None:
        if exc is not None:
            error = _httpx_error(exc, self.reading)
            if error is not None:
                raise error from None


_SENDING = _AsHttpx(reading=False)
_READING = _AsHttpx(reading=True)


def _client_timeout(timeout: Mapping[str, float | None]) -> aiohttp.ClientTimeout:
    """httpx's ``connect``, ``read`` and ``pool`` timeouts as aiohttp's."""
    return aiohttp.ClientTimeout(
        total=None,
        connect=timeout.get("pool"),
        sock_connect=timeout.get("connect"),
        sock_read=timeout.get("read"),
    )


class _Body(httpx.AsyncByteStream):
    """An aiohttp response's body as httpx reads it."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self._response = response

    async def __aiter__(self) -> AsyncIterator[bytes]:
        content = self._response.content
        with _READING:
            async for data in content.iter_any():
                yield data

    def header(self, name: str) -> str:
        """The response's header ``name`` (``""``: none), looked up in aiohttp's headers
        (a lookup in httpx's ``Headers`` decodes every header)."""
        return self._response.headers.get(name, "")

    async def read_block(self) -> bytes:
        """What has arrived of the body, in one block (``b""`` at its end): for a reader
        that takes the body in bulk, without the layers of iterators of ``aiter_bytes``."""
        with _READING:
            return await self._response.content.readany()

    async def aclose(self) -> None:
        if self._response.content.at_eof():
            self._response.release()  # read to its end: the connection is reused
        else:
            self._response.close()


class _Response(httpx.Response):
    """An aiohttp response as an httpx one (its body streamed), made without httpx's own
    construction: its ``headers`` and ``extensions`` are made on first use (the
    generation request's answer is read through :class:`_Body`, which needs neither;
    ``httpx.Response(...)`` with four headers costs about 25 k instructions)."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        # (every attribute httpx.Response.__init__ sets for a streamed response)
        self.status_code = response.status
        self._request: httpx.Request | None = None
        self.next_request: httpx.Request | None = None
        self.history: list[httpx.Response] = []
        self.is_closed = False
        self.is_stream_consumed = False
        self.default_encoding = "utf-8"
        self.stream = _Body(response)
        self._num_bytes_downloaded = 0
        self._hop = response

    def __getattr__(self, name: str) -> Any:
        """``headers`` and ``extensions``, made on first use as httpx makes them."""
        response = self.__dict__.get("_hop")
        if response is None:
            raise AttributeError(name)
        if name == "headers":
            self.headers = httpx.Headers(list(response.raw_headers))
            return self.headers
        if name == "extensions":
            self.extensions = {
                "http_version": b"HTTP/%d.%d" % tuple(response.version or (1, 1)),
                "reason_phrase": (response.reason or "").encode("latin-1", "replace"),
            }
            return self.extensions
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    async def aclose(self) -> None:
        """Close the response (its connection back to the pool when the body was read to
        its end): httpx's ``aclose`` without its error context, which closing the body
        never needs (:meth:`_Body.aclose` raises no transport error)."""
        if not self.is_closed:
            self.is_closed = True
            await self.stream.aclose()  # type: ignore[union-attr]


class AiohttpTransport(httpx.AsyncBaseTransport):
    """An httpx transport sending through one :class:`aiohttp.ClientSession` (made on the
    first request, in the running event loop): at most ``max_connections`` open at once,
    idle ones kept alive. Timeouts are the request's httpx ones: ``connect`` to connect,
    ``read`` between two reads, ``pool`` to wait for a free connection."""

    def __init__(self, max_connections: int = 512) -> None:
        self._max_connections = max_connections
        self._session: aiohttp.ClientSession | None = None

    def _open_session(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(
                    limit=self._max_connections, keepalive_timeout=IDLE_KEEPALIVE_SECONDS
                ),
                # httpx decodes the body and sets the headers; aiohttp adds none of its own
                auto_decompress=False,
                skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding"),
                trust_env=False,
            )
        return self._session

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        headers = [
            (name, value)
            for name, value in request.headers.multi_items()
            if name.lower() not in _OWN_HEADERS
        ]
        body = await request.aread()
        timeout = request.extensions.get("timeout", {})
        response = await self.send(request.method, str(request.url), headers, body, timeout)
        response.request = request
        return response

    async def send(
        self,
        method: str,
        url: str,
        headers: list[tuple[str, str]],
        body: bytes,
        timeout: Mapping[str, float | None] | aiohttp.ClientTimeout,
    ) -> httpx.Response:
        """Send one request (``timeout``: httpx's ``connect``, ``read`` and ``pool``, or
        aiohttp's made of them); the response's body is streamed."""
        session = self._open_session()
        if not isinstance(timeout, aiohttp.ClientTimeout):
            timeout = _client_timeout(timeout)
        with _SENDING:
            response = await session.request(
                method,
                url,
                headers=headers,
                data=body or None,
                allow_redirects=False,
                timeout=timeout,
            )
        return _Response(response)

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


class BackendClient(httpx.AsyncClient):
    """The client of the backend hop: httpx's interface on an :class:`AiohttpTransport`
    (``http://`` and ``https://``), no environment proxies or certificates.
    :meth:`post_json` skips the client's per-request layers (the request object, auth,
    redirects, cookies, timing: about a quarter of a millisecond of CPU per request) for
    the generation request. ``api_key`` (``None``: none) is sent as
    ``Authorization: Bearer`` on every request, :meth:`post_json`'s too."""

    def __init__(
        self, timeout: httpx.Timeout, max_connections: int = 512, api_key: str | None = None
    ) -> None:
        self.hop = AiohttpTransport(max_connections)
        auth = [] if api_key is None else [("authorization", f"Bearer {api_key}")]
        super().__init__(transport=self.hop, timeout=timeout, trust_env=False, headers=auth)
        self._hop_timeout = _client_timeout(timeout.as_dict())
        self._post_headers = [*_JSON_HEADERS, *auth]

    async def post_json(self, url: str, content: bytes) -> httpx.Response:
        """``POST`` the JSON ``content`` to ``url``, the response's body streamed (as
        ``send(request, stream=True)``), straight to the transport."""
        return await self.hop.send("POST", url, self._post_headers, content, self._hop_timeout)
