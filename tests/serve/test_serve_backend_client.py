"""The backend hop's client (httpx on aiohttp) against a raw loopback server writing scripted
bytes: framing, keep-alive, and every failure as the httpx error the backends map."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Awaitable, Callable

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from granite_formatters._serve import aiohttp_transport
from granite_formatters._serve.aiohttp_transport import AiohttpTransport, BackendClient

Script = Callable[[bytes], list[bytes]]


class RawServer:
    """Answers each request on a connection with ``script(request bytes)``: the response
    bytes, one write per item (with a pause between, so they arrive apart)."""

    def __init__(self, script: Script, close_after: bool = False) -> None:
        self.script = script
        self.close_after = close_after
        self.connections = 0
        self.requests: list[bytes] = []
        self.closed_by_client = 0
        self.server: asyncio.AbstractServer | None = None

    async def __aenter__(self) -> str:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()

    async def _request(self, reader: asyncio.StreamReader) -> bytes | None:
        first = await reader.read(65536)
        if not first:
            return None
        data = first
        while b"\r\n\r\n" not in data:
            more = await reader.read(65536)
            if not more:
                return None
            data += more
        head, _, body = data.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        while len(body) < length:
            body += await reader.read(65536)
        return head + b"\r\n\r\n" + body

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                request = await self._request(reader)
                if request is None:
                    self.closed_by_client += 1
                    break
                self.requests.append(request)
                for part in self.script(request):
                    writer.write(part)
                    await writer.drain()
                    await asyncio.sleep(0.002)
                if self.close_after:
                    break
        except ConnectionError:
            self.closed_by_client += 1
        finally:
            writer.close()


def chunked(payload: bytes, sizes: list[int]) -> bytes:
    out = b""
    start = 0
    for size in sizes:
        piece = payload[start : start + size]
        if not piece:
            break
        out += b"%x\r\n%s\r\n" % (len(piece), piece)
        start += size
    rest = payload[start:]
    if rest:
        out += b"%x\r\n%s\r\n" % (len(rest), rest)
    return out + b"0\r\n\r\n"


def cut(data: bytes, cuts: list[int]) -> list[bytes]:
    bounds = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def run(go: Callable[[], Awaitable[object]], loop: str = "asyncio") -> object:
    if loop == "uvloop":
        uvloop = pytest.importorskip("uvloop")
        return uvloop.run(go())
    return asyncio.run(go())  # type: ignore[arg-type]


def client(timeout: float = 5) -> httpx.AsyncClient:
    return BackendClient(httpx.Timeout(timeout))


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_keep_alive_and_bulk_chunks_on_each_event_loop(loop: str) -> None:
    payload = b"data: x\n\n" * 50
    wire = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n" + chunked(payload, [9] * 50)
    server = RawServer(lambda _: cut(wire, [100, 200, 300]))

    async def go() -> None:
        async with server as url, client() as http:
            for _ in range(3):
                async with http.stream("POST", url + "/v1/completions", content=b"{}") as r:
                    assert await r.aread() == payload
        assert server.connections == 1

    run(go, loop)


@settings(max_examples=40, deadline=None)
@given(
    payload=st.binary(max_size=300),
    sizes=st.lists(st.integers(1, 40), max_size=10),
    cuts=st.lists(st.integers(0, 5000), max_size=8),
    framing=st.sampled_from(["chunked", "length", "close"]),
)
def test_body_arrives_whole_however_framed_and_cut(
    payload: bytes, sizes: list[int], cuts: list[int], framing: str
) -> None:
    if framing == "chunked":
        head = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
        wire = head + chunked(payload, sizes)
    elif framing == "length":
        wire = b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s" % (len(payload), payload)
    else:
        wire = b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n" + payload
    server = RawServer(lambda _: cut(wire, cuts), close_after=framing == "close")

    async def go() -> None:
        async with server as url, client() as http:
            for _ in range(2):  # the second request: a kept-alive or a new connection
                async with http.stream("POST", url + "/v1/completions", content=b"{}") as r:
                    assert r.status_code == 200
                    assert await r.aread() == payload
        assert server.connections == (2 if framing == "close" else 1)

    run(go)


def test_the_request_goes_out_whole() -> None:
    answer = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"
    server = RawServer(lambda _: [answer])
    body = b'{"prompt": "' + b"x" * 2000 + b'"}'

    async def go() -> None:
        async with server as url, client() as http:
            response = await http.post(url + "/v1/completions?a=1", content=body)
            assert response.text == "ok"
        (request,) = server.requests
        assert request.startswith(b"POST /v1/completions?a=1 HTTP/1.1\r\n")
        assert b"\r\ncontent-length: %d\r\n" % len(body) in request.lower()
        assert request.endswith(b"\r\n\r\n" + body)

    run(go)


def test_informational_answers_are_skipped_and_head_requests_have_no_body() -> None:
    def script(request: bytes) -> list[bytes]:
        if request.startswith(b"HEAD"):
            return [b"HTTP/1.1 200 OK\r\ncontent-length: 99\r\n\r\n"]
        return [
            b"HTTP/1.1 100 Continue\r\n\r\n",
            b"HTTP/1.1 201 Made\r\ncontent-length: 1\r\n\r\n!",
        ]

    server = RawServer(script)

    async def go() -> None:
        async with server as url, client() as http:
            head = await http.head(url + "/x")
            assert (head.status_code, head.content) == (200, b"")
            made = await http.post(url + "/x", content=b"a")
            assert (made.status_code, made.content, made.reason_phrase) == (201, b"!", "Made")
        assert server.connections == 1

    run(go)


def test_the_generation_answer_is_made_without_httpx_construction() -> None:
    """``post_json``'s response (the generation request's) is httpx's interface made
    without its construction: its headers and extensions are made only when read, and
    then as httpx makes them (repeated and case-insensitive headers, version, reason)."""
    wire = (
        b"HTTP/1.1 202 Taken\r\nContent-Type: application/json\r\nX-A: 1\r\nx-a: 2\r\n"
        b"content-length: 2\r\n\r\n{}"
    )
    server = RawServer(lambda _: [wire])

    async def go() -> None:
        async with server as url, client() as http:
            assert isinstance(http, BackendClient)
            response = await http.post_json(url + "/v1/completions", b"{}")
            assert isinstance(response, httpx.Response)
            assert "headers" not in vars(response) and "extensions" not in vars(response)
            assert response.status_code == 202
            assert response.headers.get_list("x-a") == ["1", "2"]
            assert response.headers["CONTENT-TYPE"] == "application/json"
            assert (response.http_version, response.reason_phrase) == ("HTTP/1.1", "Taken")
            assert await response.aread() == b"{}"
            await response.aclose()
            with pytest.raises(AttributeError):
                response.no_such_attribute  # type: ignore[attr-defined]  # noqa: B018

    run(go)


@pytest.mark.parametrize(
    "wire",
    [
        [b"HTP/1.1 200 OK\r\n\r\n"],
        [b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n"],
        [b"HTTP/1.1 200 OK\r\ncontent-length: x\r\n\r\n"],
        [b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n"],
        [b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n"],
        [b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc"],  # then the server closes
        [b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nab"],
        [b"HTTP/1.1 200 OK\r\n"],  # closed mid-head
        [],  # closed without an answer
        [b"HTTP/1.1 200 OK\r\nx-big: " + b"a" * 100_000 + b"\r\n\r\n"],  # a head too long
        [b"HTTP/1.1 200 OK\r\n" + b"x-many: a\r\n" * 10_000 + b"\r\n"],  # too many headers
    ],
)
def test_malformed_or_cut_answers_are_protocol_errors(wire: list[bytes]) -> None:
    server = RawServer(lambda _: wire, close_after=True)

    async def go() -> None:
        async with server as url, client() as http:
            with pytest.raises(httpx.RemoteProtocolError):
                await http.post(url + "/x", content=b"a")

    run(go)


def test_a_silent_server_is_a_read_timeout_and_a_closed_port_a_connect_error() -> None:
    server = RawServer(lambda _: [b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nab"])

    async def go() -> None:
        async with server as url:
            async with client(0.3) as http:
                with pytest.raises(httpx.ReadTimeout):
                    await http.post(url + "/x", content=b"a")
            port = url.rsplit(":", 1)[1]
        async with client() as http:
            with pytest.raises(httpx.ConnectError):
                await http.get(f"http://127.0.0.1:{port}/x")

    run(go)


def test_a_response_closed_before_its_end_closes_its_connection() -> None:
    body = chunked(b"x" * 100, [10] * 10)
    head = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
    server = RawServer(lambda _: [head + body[:30], body[30:]])

    async def go() -> None:
        async with server as url, client() as http:
            async with http.stream("POST", url + "/x", content=b"a") as response:
                async for _ in response.aiter_bytes():
                    break
            for _ in range(100):
                if server.closed_by_client:
                    break
                await asyncio.sleep(0.01)
            assert server.closed_by_client == 1
            # the next request opens a new connection
            assert (await http.post(url + "/x", content=b"a")).content == b"x" * 100
        assert server.connections == 2

    run(go)


def test_a_kept_alive_connection_the_server_closed_is_not_reused() -> None:
    # The answer allows keep-alive, then the server closes the connection anyway.
    server = RawServer(
        lambda _: [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"], close_after=True
    )

    async def go() -> None:
        async with server as url, client() as http:
            assert (await http.get(url + "/x")).text == "ok"
            await asyncio.sleep(0.05)  # the end of the idle connection arrives
            assert (await http.get(url + "/x")).text == "ok"
        assert server.connections == 2

    run(go)


def test_an_idle_connection_is_dropped_before_the_backend_drops_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Backends close an idle connection after 5 seconds (uvicorn's default, under vLLM
    and SGLang): the pool lets one go sooner, so no request races the backend's close."""
    import uvicorn

    assert (
        uvicorn.Config(app="app:app").timeout_keep_alive > aiohttp_transport.IDLE_KEEPALIVE_SECONDS
    )
    monkeypatch.setattr(aiohttp_transport, "IDLE_KEEPALIVE_SECONDS", 0.1)
    server = RawServer(lambda _: [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"])

    async def go() -> None:
        async with server as url, client() as http:
            assert (await http.get(url + "/x")).text == "ok"
            assert (await http.get(url + "/x")).text == "ok"
            assert server.connections == 1  # (kept alive while in use)
            await asyncio.sleep(0.4)
            assert (await http.get(url + "/x")).text == "ok"
        assert server.connections == 2

    run(go)


def test_at_most_max_connections_are_open_and_others_wait() -> None:
    server = RawServer(lambda _: [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"])

    async def go() -> None:
        async with server as url:
            transport = AiohttpTransport(max_connections=2)
            async with httpx.AsyncClient(transport=transport, timeout=5) as http:
                answers = await asyncio.gather(*(http.get(url + "/x") for _ in range(6)))
        assert [a.text for a in answers] == ["ok"] * 6
        assert server.connections <= 2

    run(go)


def test_a_pool_that_stays_full_is_a_timeout() -> None:
    """The only connection is held by an unfinished answer: the next request waits for the
    pool timeout, then fails as a timeout (which serve answers with a 504)."""
    head = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1\r\nx\r\n"
    server = RawServer(lambda _: [head])

    async def go() -> None:
        async with server as url:
            transport = AiohttpTransport(max_connections=1)
            timeout = httpx.Timeout(5, pool=0.2)
            async with (
                httpx.AsyncClient(transport=transport, timeout=timeout) as http,
                http.stream("POST", url + "/x", content=b"a"),
            ):
                with pytest.raises(httpx.TimeoutException):
                    await http.post(url + "/x", content=b"a")

    run(go)


@pytest.mark.parametrize("url", ["ftp://127.0.0.1:1/x", "unix:///tmp/x"])
def test_only_http_and_https(url: str) -> None:
    async def go() -> None:
        async with client() as http:
            with pytest.raises(httpx.UnsupportedProtocol):
                await http.get(url)

    run(go)


def test_no_default_headers_from_either_library() -> None:
    """The generation request carries what the backend adapter set and nothing of httpx's
    or aiohttp's defaults (no User-Agent, Accept or Accept-Encoding)."""
    server = RawServer(lambda _: [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"])

    async def go() -> None:
        async with server as url, client() as http:
            request = httpx.Request(
                "POST", url + "/v1/completions", content=b"{}",
                headers={"content-type": "application/json"},
            )  # fmt: skip
            response = await http.send(request)
            assert response.text == "ok"
        (sent,) = server.requests
        names = {
            line.split(b":")[0].lower() for line in sent.split(b"\r\n\r\n")[0].split(b"\r\n")[1:]
        }
        assert names == {b"host", b"content-type", b"content-length"}

    run(go)


_SSE_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
)
_EVENT = b'data: {"content": "Paris", "stop": false}\n\n'


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    "wire",
    [
        [b"HTP/1.1 200 OK\r\n\r\n"],  # not HTTP
        [b"HTTP/1.1 200 OK\r\nx-big: " + b"a" * 100_000 + b"\r\n\r\n"],  # a head too long
        [],  # closed without an answer
        [_SSE_HEAD + b"%x\r\n%s\r\n" % (len(_EVENT), _EVENT), b"ff\r\nda"],  # cut mid-chunk
        [_SSE_HEAD + b"zz\r\n"],  # a malformed chunk size
    ],
    ids=["not-http", "head-too-long", "no-answer", "cut-mid-chunk", "bad-chunk-size"],
)
def test_serve_answers_a_broken_backend_cleanly(wire: list[bytes], stream: bool) -> None:
    """Through ``granite-format serve``: a backend whose HTTP is broken is a 502 before the
    first byte, an error event and ``[DONE]`` after it; never a 500 or a hung request."""
    from granite_formatters._serve import ServeConfig, create_app

    from .servers import ServerThread

    server = RawServer(lambda _: wire, close_after=True)

    async def go() -> None:
        async with server as url:
            config = ServeConfig(backend=url, backend_type="llamacpp", read_timeout=5.0)
            proxy = ServerThread(create_app(config))
            try:
                body = {
                    "model": "granite-3.3-8b-instruct",
                    "messages": [{"role": "user", "content": "Capital of France?"}],
                    "max_tokens": 20,
                    "stream": stream,
                }
                async with httpx.AsyncClient(timeout=20) as http:
                    answer = await http.post(proxy.url + "/v1/chat/completions", json=body)
            finally:
                await asyncio.to_thread(proxy.stop)
        if stream and any(_EVENT in part for part in wire):  # an event went out first
            assert answer.status_code == 200
            events = [line for line in answer.text.split("\n") if line.startswith("data: ")]
            assert events[-1] == "data: [DONE]"
            assert '"content":"Paris"' in answer.text
            error = json.loads(events[-2][6:])["error"]
            assert error["message"] == "the backend connection failed"
        else:
            assert answer.status_code == 502
            assert "backend" in answer.json()["error"]["message"]

    run(go)
