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
import contextlib
from collections.abc import AsyncIterator, Iterator, Mapping

import aiohttp
import httpx

__all__ = ["AiohttpTransport", "BackendClient"]

#: Request headers aiohttp writes itself (from the URL and the body).
_OWN_HEADERS = frozenset({"host", "content-length", "transfer-encoding"})
_JSON_HEADERS = [("content-type", "application/json")]


@contextlib.contextmanager
def _as_httpx(reading: bool) -> Iterator[None]:
    """aiohttp's errors as httpx's (``reading``: while the body is read)."""
    try:
        yield
    except aiohttp.ConnectionTimeoutError as exc:
        raise httpx.ConnectTimeout(str(exc) or "timed out connecting") from None
    except (aiohttp.ServerTimeoutError, asyncio.TimeoutError) as exc:
        raise httpx.ReadTimeout(str(exc) or "timed out reading the response") from None
    except aiohttp.ClientConnectorError as exc:
        raise httpx.ConnectError(str(exc)) from None
    except (aiohttp.ClientPayloadError, aiohttp.ClientResponseError) as exc:
        raise httpx.RemoteProtocolError(str(exc)) from None
    except aiohttp.ServerDisconnectedError as exc:
        if reading:
            raise httpx.RemoteProtocolError(str(exc)) from None
        raise httpx.RemoteProtocolError("the server disconnected without a response") from None
    except (aiohttp.InvalidURL, aiohttp.NonHttpUrlClientError) as exc:
        raise httpx.UnsupportedProtocol(str(exc)) from None
    except aiohttp.ClientError as exc:
        raise httpx.ReadError(str(exc) or type(exc).__name__) from None


class _Body(httpx.AsyncByteStream):
    """An aiohttp response's body as httpx reads it."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self._response = response

    async def __aiter__(self) -> AsyncIterator[bytes]:
        content = self._response.content
        with _as_httpx(reading=True):
            async for data in content.iter_any():
                yield data

    async def read_block(self) -> bytes:
        """What has arrived of the body, in one block (``b""`` at its end): for a reader
        that takes the body in bulk, without the layers of iterators of ``aiter_bytes``."""
        with _as_httpx(reading=True):
            return await self._response.content.readany()

    async def aclose(self) -> None:
        if self._response.content.at_eof():
            self._response.release()  # read to its end: the connection is reused
        else:
            self._response.close()


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
                connector=aiohttp.TCPConnector(limit=self._max_connections),
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
        timeout: Mapping[str, float | None],
    ) -> httpx.Response:
        """Send one request (``timeout``: httpx's ``connect``, ``read`` and ``pool``); the
        response's body is streamed."""
        session = self._open_session()
        with _as_httpx(reading=False):
            response = await session.request(
                method,
                url,
                headers=headers,
                data=body or None,
                allow_redirects=False,
                timeout=aiohttp.ClientTimeout(
                    total=None,
                    connect=timeout.get("pool"),
                    sock_connect=timeout.get("connect"),
                    sock_read=timeout.get("read"),
                ),
            )
        return httpx.Response(
            response.status,
            headers=list(response.raw_headers),
            stream=_Body(response),
            extensions={
                "http_version": b"HTTP/%d.%d" % tuple(response.version or (1, 1)),
                "reason_phrase": (response.reason or "").encode("latin-1", "replace"),
            },
        )

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


class BackendClient(httpx.AsyncClient):
    """The client of the backend hop: httpx's interface on an :class:`AiohttpTransport`
    (``http://`` and ``https://``), no environment proxies or certificates.
    :meth:`post_json` skips the client's per-request layers (the request object, auth,
    redirects, cookies, timing: about a quarter of a millisecond of CPU per request) for
    the generation request."""

    def __init__(self, timeout: httpx.Timeout, max_connections: int = 512) -> None:
        self.hop = AiohttpTransport(max_connections)
        super().__init__(transport=self.hop, timeout=timeout, trust_env=False)
        self._timeouts = timeout.as_dict()

    async def post_json(self, url: str, content: bytes) -> httpx.Response:
        """``POST`` the JSON ``content`` to ``url``, the response's body streamed (as
        ``send(request, stream=True)``), straight to the transport."""
        return await self.hop.send("POST", url, _JSON_HEADERS, content, self._timeouts)
