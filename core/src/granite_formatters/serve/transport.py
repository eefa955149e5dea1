"""A lean HTTP/1.1 transport for the backend hop (plain ``http://`` on asyncio).

httpx's default transport goes through httpcore and h11: two writes per request (the head,
then the body) and, for a streamed answer, one trip through half a dozen layers per HTTP
chunk, that is per generated token. Behind a proxy that costs more CPU than the rest of the
request. :class:`BackendTransport` is an httpx transport (so the client, its timeouts and
its errors stay the same) that writes a request's head and body in one write, keeps
connections alive in a pool, and decodes a response body in bulk: whatever has arrived,
however many chunks, comes out as one piece.

What it speaks: HTTP/1.1 requests; responses framed by ``Content-Length``, ``chunked`` or
the end of the connection; ``1xx`` answers skipped. Malformed responses raise
:class:`httpx.RemoteProtocolError`, timeouts :class:`httpx.ConnectTimeout`,
:class:`httpx.ReadTimeout` or :class:`httpx.PoolTimeout`, a failed connection
:class:`httpx.ConnectError` and a lost one :class:`httpx.ReadError`. A response not read
to its end closes its connection when it is closed (which is how the backend learns that
a request was cancelled).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Any, cast

import httpx

__all__ = ["BackendClient", "BackendTransport"]

#: The most bytes a response head (status line and headers) may have.
_HEAD_LIMIT = 64 * 1024
#: Reading from a connection pauses while this much is buffered and not yet consumed.
_HIGH_WATER = 256 * 1024
_CHUNK_SIZE = re.compile(rb"[0-9A-Fa-f]{1,16}")
_STATUS_LINE = re.compile(rb"HTTP/1\.([01]) ([0-9]{3})(?: (.*))?")
_NO_BODY_STATUS = (204, 304)


def _timeout(request: httpx.Request, name: str) -> float | None:
    value = request.extensions.get("timeout", {}).get(name)
    return None if value is None else float(value)


class _Connection(asyncio.Protocol):
    """One TCP connection: what has arrived is buffered until the response reader takes it."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self.buffer = bytearray()
        self.received = 0  # bytes received in all (to tell whether more came)
        self.transport: asyncio.Transport | None = None
        self.eof = False
        self._waiter: asyncio.Future[None] | None = None
        self._paused = False

    # -- asyncio.Protocol ---------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # (uvloop's transports have the methods, not the asyncio base classes)
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        self.received += len(data)
        if len(self.buffer) > _HIGH_WATER and not self._paused and self.transport is not None:
            self._paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.eof = True
        self._wake()
        return False  # the transport closes itself

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    # -- for the transport --------------------------------------------------------------

    def reusable(self) -> bool:
        """Idle and still open: no EOF, nothing unasked-for received."""
        return (
            not self.eof
            and not self.buffer
            and self.transport is not None
            and not self.transport.is_closing()
        )

    def close(self) -> None:
        self.eof = True
        if self.transport is not None:
            self.transport.close()

    def write(self, data: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            raise httpx.WriteError("the connection is closed")
        self.transport.write(data)

    async def fill(self, timeout: float | None, seen: int | None = None) -> bool:
        """Wait for more bytes than ``seen`` (:attr:`received` when the caller last looked;
        by default, now); ``False`` at the end of the connection (nothing more)."""
        if seen is not None and seen != self.received:
            return True
        if self.eof:
            return False
        if self._paused and self.transport is not None:
            self._paused = False
            self.transport.resume_reading()
        waiter = self._loop.create_future()
        self._waiter = waiter
        timer = None
        if timeout is not None:
            timer = self._loop.call_later(timeout, _expire, waiter)
        try:
            await waiter
        finally:
            self._waiter = None
            if timer is not None:
                timer.cancel()
        return bool(self.buffer) or not self.eof

    def take(self, limit: int = -1) -> bytes:
        """Up to ``limit`` buffered bytes (all of them for ``-1``)."""
        if limit < 0 or limit >= len(self.buffer):
            data = bytes(self.buffer)
            self.buffer.clear()
        else:
            data = bytes(self.buffer[:limit])
            del self.buffer[:limit]
        return data

    async def head(self, timeout: float | None) -> bytes:
        """The response head up to (without) its blank line."""
        searched = 0
        while True:
            crlf = self.buffer.find(b"\r\n\r\n", max(searched - 3, 0))
            lf = self.buffer.find(b"\n\n", max(searched - 1, 0))
            if crlf >= 0 and (lf < 0 or crlf < lf):
                head = bytes(self.buffer[:crlf])
                del self.buffer[: crlf + 4]
                return head
            if lf >= 0:  # bare LF line ends (tolerated, as h11 does)
                head = bytes(self.buffer[:lf])
                del self.buffer[: lf + 2]
                return head
            searched = len(self.buffer)
            if searched > _HEAD_LIMIT:
                raise httpx.RemoteProtocolError("the response head is too long")
            if not await self.fill(timeout):
                if self.buffer:
                    raise httpx.RemoteProtocolError("the server closed the connection mid-head")
                raise httpx.RemoteProtocolError("the server disconnected without a response")


def _expire(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_exception(httpx.ReadTimeout("timed out reading the response"))


def _parse_head(head: bytes) -> tuple[int, bool, str, list[tuple[bytes, bytes]]]:
    """Status, whether HTTP/1.1, reason phrase and headers of a response head."""
    lines = head.split(b"\n")
    status = _STATUS_LINE.fullmatch(lines[0].rstrip(b"\r"))
    if status is None:
        raise httpx.RemoteProtocolError("the response has no valid status line")
    headers: list[tuple[bytes, bytes]] = []
    for line in lines[1:]:
        line = line.rstrip(b"\r")
        name, colon, value = line.partition(b":")
        if not colon or not name or name != name.strip() or line[:1] in (b" ", b"\t"):
            raise httpx.RemoteProtocolError("the response has a malformed header line")
        headers.append((name, value.strip(b" \t")))
    reason = (status.group(3) or b"").decode("latin-1")
    return int(status.group(2)), status.group(1) == b"1", reason, headers


class _Body(httpx.AsyncByteStream):
    """A response body as it arrives; at its end the connection goes back to the pool."""

    def __init__(
        self,
        pool: BackendTransport,
        key: tuple[str, int],
        conn: _Connection,
        timeout: float | None,
        length: int | None,
        chunked: bool,
        keep_alive: bool,
    ) -> None:
        self._pool = pool
        self._key = key
        self._conn = conn
        self._timeout = timeout
        self._length = length  # None: to the end of the connection (or of the chunks)
        self._chunked = chunked
        self._keep_alive = keep_alive
        self._done = False
        self._closed = False
        # chunked: the bytes left of the current chunk; -1: its size line is next
        self._left = -1
        self._crlf = False  # the CRLF after a chunk's data is next
        self._trailers = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        conn = self._conn
        try:
            if self._length == 0 and not self._chunked:
                self._done = True
            while not self._done:
                seen = conn.received
                if self._chunked:
                    data = self._dechunk()
                elif self._length is not None:
                    data = conn.take(self._length)
                    self._length -= len(data)
                    self._done = self._length == 0
                else:
                    data = conn.take()
                if data:
                    yield data
                if self._done:
                    break
                if not await conn.fill(self._timeout, seen):
                    if self._length is None and not self._chunked:
                        self._done = True
                        self._keep_alive = False
                        break
                    raise httpx.RemoteProtocolError(
                        "the server closed the connection before the response ended"
                    )
        except BaseException:
            self._keep_alive = False
            raise
        self._release()

    def _dechunk(self) -> bytes:
        """What the buffered bytes hold of the chunked body; sets ``_done`` at its end."""
        buffer = self._conn.buffer
        out: list[bytes] = []
        while True:
            if self._left > 0:
                take = min(self._left, len(buffer))
                out.append(bytes(buffer[:take]))
                del buffer[:take]
                self._left -= take
                if self._left:
                    break
                self._crlf = True
            if self._crlf:
                if len(buffer) < 2:
                    if bytes(buffer[:1]) not in (b"", b"\r", b"\n"):
                        raise httpx.RemoteProtocolError("a chunk is longer than its size")
                    if buffer[:1] == b"\n":  # a bare LF ends the chunk too
                        del buffer[:1]
                        self._crlf = False
                        continue
                    break
                if buffer[:2] == b"\r\n":
                    del buffer[:2]
                elif buffer[:1] == b"\n":
                    del buffer[:1]
                else:
                    raise httpx.RemoteProtocolError("a chunk is longer than its size")
                self._crlf = False
            end = buffer.find(b"\n")
            if end < 0:
                if len(buffer) > _HEAD_LIMIT:
                    raise httpx.RemoteProtocolError("a chunk size line is too long")
                break
            line = bytes(buffer[:end]).rstrip(b"\r")
            del buffer[: end + 1]
            if self._trailers:
                if not line:
                    self._done = True
                    break
                continue
            size = line.partition(b";")[0].strip(b" \t")
            if _CHUNK_SIZE.fullmatch(size) is None:
                raise httpx.RemoteProtocolError("a chunk has a malformed size line")
            self._left = int(size, 16)
            if self._left == 0:
                self._trailers = True
        return b"".join(out)

    def _release(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._done and self._keep_alive and self._conn.reusable():
            self._pool._put(self._key, self._conn)
        else:
            self._conn.close()
            self._pool._forget()

    async def aclose(self) -> None:
        if not self._done:
            self._keep_alive = False
        self._release()


class BackendTransport(httpx.AsyncBaseTransport):
    """HTTP/1.1 over plain TCP for :class:`httpx.AsyncClient` (``http://`` URLs only; mount
    it for ``http://``). At most ``max_connections`` open at once (a request waits for one
    up to the pool timeout), at most ``max_keepalive`` idle ones kept per server."""

    def __init__(self, max_connections: int = 512, max_keepalive: int = 128) -> None:
        self._idle: dict[tuple[str, int], list[_Connection]] = {}
        self._max_connections = max_connections
        self._max_keepalive = max_keepalive
        self._open = 0
        self._slot_freed: asyncio.Event | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.scheme != "http":
            raise httpx.UnsupportedProtocol("this transport speaks plain http:// only")
        host = request.url.host
        port = request.url.port or 80
        key = (host, port)
        body = await request.aread()
        if request.headers.get("transfer-encoding", "").lower() == "chunked":
            body = (b"%x\r\n%s\r\n" % (len(body), body) if body else b"") + b"0\r\n\r\n"
        head = [b"%s %s HTTP/1.1\r\n" % (request.method.encode("ascii"), request.url.raw_path)]
        for name, value in request.headers.raw:
            head.append(b"%s: %s\r\n" % (name, value))
        head.append(b"\r\n")
        message = b"".join(head) + body
        conn = await self._connection(key, request)
        try:
            conn.write(message)  # head and body: one write
            read_timeout = _timeout(request, "read")
            while True:
                status, http11, reason, headers = _parse_head(await conn.head(read_timeout))
                if not 100 <= status < 200:
                    break
            response = self._response(request, key, conn, status, http11, reason, headers)
        except BaseException:
            conn.close()
            self._forget()
            raise
        return response

    def _response(
        self,
        request: httpx.Request,
        key: tuple[str, int],
        conn: _Connection,
        status: int,
        http11: bool,
        reason: str,
        headers: list[tuple[bytes, bytes]],
    ) -> httpx.Response:
        length: int | None = None
        chunked = False
        keep_alive = http11
        for name, value in headers:
            lower = name.lower()
            if lower == b"content-length":
                if not value.isdigit() or (length is not None and length != int(value)):
                    raise httpx.RemoteProtocolError("the response has a bad Content-Length")
                length = int(value)
            elif lower == b"transfer-encoding":
                chunked = value.lower().rsplit(b",", 1)[-1].strip() == b"chunked"
                if not chunked:
                    keep_alive = False  # framed by the end of the connection
            elif lower == b"connection":
                tokens = {t.strip() for t in value.lower().split(b",")}
                if b"close" in tokens:
                    keep_alive = False
                elif b"keep-alive" in tokens and not http11:
                    keep_alive = True
        if chunked:
            length = None
        if request.method == "HEAD" or status in _NO_BODY_STATUS:
            length, chunked = 0, False
        if length is None and not chunked:
            keep_alive = False
        stream = _Body(self, key, conn, _timeout(request, "read"), length, chunked, keep_alive)
        return httpx.Response(
            status,
            headers=headers,
            stream=stream,
            extensions={
                "http_version": b"HTTP/1.1" if http11 else b"HTTP/1.0",
                "reason_phrase": reason.encode("latin-1"),
            },
        )

    async def _connection(self, key: tuple[str, int], request: httpx.Request) -> _Connection:
        """An idle connection to ``key``, else a new one."""
        while True:
            idle = self._idle.get(key)
            while idle:
                conn = idle.pop()
                if conn.reusable():
                    return conn
                conn.close()
                self._forget()
            if self._open < self._max_connections:
                break
            other = next((conns for conns in self._idle.values() if conns), None)
            if other is not None:  # an idle connection to another server makes room
                other.pop().close()
                self._forget()
                continue
            if self._slot_freed is None:
                self._slot_freed = asyncio.Event()
            event = self._slot_freed
            try:
                await asyncio.wait_for(event.wait(), _timeout(request, "pool"))
            except asyncio.TimeoutError:
                raise httpx.PoolTimeout("no backend connection came free in time") from None
        self._open += 1
        loop = asyncio.get_running_loop()
        try:
            _, conn = await asyncio.wait_for(
                loop.create_connection(lambda: _Connection(loop), key[0], key[1]),
                _timeout(request, "connect"),
            )
        except asyncio.TimeoutError:
            self._forget()
            raise httpx.ConnectTimeout("timed out connecting to the server") from None
        except OSError as exc:
            self._forget()
            raise httpx.ConnectError(str(exc)) from None
        except BaseException:
            self._forget()
            raise
        return conn

    def _put(self, key: tuple[str, int], conn: _Connection) -> None:
        idle = self._idle.setdefault(key, [])
        if len(idle) >= self._max_keepalive:
            conn.close()
            self._forget()
        else:
            idle.append(conn)
            self._wake_waiters()

    def _forget(self) -> None:
        """One connection fewer is open."""
        self._open -= 1
        self._wake_waiters()

    def _wake_waiters(self) -> None:
        if self._slot_freed is not None:
            self._slot_freed.set()
            self._slot_freed = None

    async def aclose(self) -> None:
        for idle in self._idle.values():
            for conn in idle:
                conn.close()
                self._forget()
        self._idle.clear()


class BackendClient(httpx.AsyncClient):
    """An :class:`httpx.AsyncClient` whose plain ``http://`` requests go through a
    :class:`BackendTransport`; :meth:`open_stream` skips the client's per-request layers
    (auth, redirects, cookies, timing) for the generation request."""

    def __init__(self, *, max_connections: int, max_keepalive: int, **options: Any) -> None:
        self.lean = BackendTransport(max_connections, max_keepalive)
        super().__init__(
            limits=httpx.Limits(
                max_connections=max_connections, max_keepalive_connections=max_keepalive
            ),
            mounts={"http://": self.lean},
            **options,
        )

    async def open_stream(self, request: httpx.Request) -> httpx.Response:
        """``send(request, stream=True)``, straight to the transport for ``http://``."""
        if request.url.scheme != "http":
            return await self.send(request, stream=True)
        response = await self.lean.handle_async_request(request)
        response.request = request
        return response
