"""A non-streaming client's answer read in bulk (``read_answer``) against the same backend
stream read event by event (``collect`` of ``answer_events``): equal for every backend
type and any cut of the backend's bytes, also when the stream fails."""

from __future__ import annotations

import asyncio
import functools
import gzip
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from granite_formatters._serve.backends import Backend, BackendError, make_backend
from granite_formatters._serve.exchange import (
    Answer,
    Prepared,
    answer_events,
    collect,
    prepare,
    read_answer,
)

from .conftest import KINDS
from .servers import wire_events
from .test_serve_backend_client import RawServer, chunked, client
from .test_serve_backends import TEXT, split

MODEL = "granite-3.3-8b-instruct"
#: What may follow the backend's events: nothing more, a malformed event, a lost connection.
TAILS = ("", "malformed", "lost")


class Body(httpx.AsyncByteStream):
    """The backend's bytes in the given reads; ``lost``: the connection fails after them."""

    def __init__(self, parts: list[bytes], lost: bool) -> None:
        self.parts = parts
        self.lost = lost

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for part in self.parts:
            yield part
        if self.lost:
            raise httpx.ReadError("connection reset by peer")


@functools.cache
def prepared(kind: str, top: int | None) -> tuple[Backend, Prepared]:
    backend = make_backend(kind, "http://backend.test/v1")
    body: dict[str, Any] = {"model": MODEL, "messages": [{"role": "user", "content": "Hi"}]}
    body["max_tokens"] = 100
    if top is not None:
        body.update(logprobs=True, top_logprobs=top)
    return backend, prepare(body, backend, {}, 1 << 20)


Outcome = tuple[str, Any, Any]


def outcome(
    kind: str, parts: list[bytes], lost: bool, top: int | None, max_bytes: int | None, bulk: bool
) -> Outcome:
    backend, request = prepared(kind, top)

    def handler(_: httpx.Request) -> httpx.Response:
        media = "application/x-ndjson" if kind == "ollama" else "text/event-stream"
        return httpx.Response(200, stream=Body(parts, lost), headers={"content-type": media})

    async def go() -> Answer:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            response = await backend.open(
                client, request.prompt, MODEL, request.params, request.request
            )
            try:
                if bulk:
                    return await read_answer(backend, response, request, max_bytes)
                return await collect(answer_events(backend, response, request, max_bytes))
            finally:
                await response.aclose()

    try:
        answer = asyncio.run(go())
    except BackendError as exc:
        return "error", str(exc), exc.status
    return "answer", answer, None


def wire(kind: str, pieces: list[str], finish: str, complete: bool, probs: bool) -> bytes:
    if kind == "llamacpp":
        events = wire_events(kind, "m", pieces, finish, complete, n_probs=3 if probs else 0)
    else:
        events = wire_events(kind, "m", pieces, finish, complete, logprobs=probs)
    return b"".join(events)


def check(
    kind: str,
    data: bytes,
    cuts: list[int],
    tail: str,
    top: int | None,
    max_bytes: int | None,
) -> Outcome:
    if tail == "malformed":
        data += b"not json\n" if kind == "ollama" else b"data: not json\n\n"
    parts = split(data, cuts)
    streamed = outcome(kind, parts, tail == "lost", top, max_bytes, bulk=False)
    assert outcome(kind, parts, tail == "lost", top, max_bytes, bulk=True) == streamed
    return streamed


@pytest.mark.parametrize("kind", KINDS)
@given(
    pieces=st.lists(TEXT, max_size=8),
    cuts=st.lists(st.integers(0, 10_000), max_size=12),
    length=st.booleans(),
    complete=st.booleans(),
    tail=st.sampled_from(TAILS),
    max_bytes=st.none() | st.integers(0, 80),
)
@example(pieces=["Hel", "lo é", "🌤️!"], cuts=[5, 40, 41], length=False, complete=True,
         tail="", max_bytes=None)  # fmt: skip
@example(pieces=["Hel", "lo"], cuts=[30], length=False, complete=False, tail="lost",
         max_bytes=None)  # fmt: skip
def test_bulk_equals_streamed(
    kind: str,
    pieces: list[str],
    cuts: list[int],
    length: bool,
    complete: bool,
    tail: str,
    max_bytes: int | None,
) -> None:
    data = wire(kind, pieces, "length" if length else "stop", complete, probs=False)
    check(kind, data, cuts, tail, None, max_bytes)


@pytest.mark.parametrize("kind", ["openai", "llamacpp"])
@given(
    pieces=st.lists(TEXT, max_size=6),
    cuts=st.lists(st.integers(0, 10_000), max_size=8),
    probs=st.booleans(),
    top=st.integers(0, 3),
    max_bytes=st.none() | st.integers(0, 40),
)
def test_bulk_equals_streamed_with_logprobs(
    kind: str, pieces: list[str], cuts: list[int], probs: bool, top: int, max_bytes: int | None
) -> None:
    data = wire(kind, pieces, "stop", True, probs)
    check(kind, data, cuts, "", top, max_bytes)


def test_an_event_split_across_reads() -> None:
    data = wire("openai", ["Hello", " world"], "stop", True, probs=False)
    middle = data.index(b"world") + 2
    kind, answer, _ = check("openai", data, [middle], "", None, None)
    assert kind == "answer"
    assert (answer.text, answer.finish.reason) == ("Hello world", "stop")
    assert answer.finish.usage.to_openai()["completion_tokens"] == 2


@pytest.mark.parametrize("kind", KINDS)
def test_a_connection_lost_mid_stream(kind: str) -> None:
    data = wire(kind, ["Hello", " world"], "stop", False, probs=False)
    assert check(kind, data, [7], "lost", None, None) == (
        "error",
        "the backend connection failed",
        502,
    )


@pytest.mark.parametrize("kind", ["openai", "llamacpp"])
def test_text_without_logprobs_is_an_error(kind: str) -> None:
    data = wire(kind, ["Hello"], "stop", True, probs=False)
    assert check(kind, data, [], "", 2, None) == (
        "error",
        "the backend sent no logprobs with the answer's tokens",
        502,
    )


def test_logprobs_cut_to_top() -> None:
    data = wire("llamacpp", ["Hello", " world"], "stop", True, probs=True)
    kind, answer, _ = check("llamacpp", data, [], "", 1, None)
    assert kind == "answer" and len(answer.logprobs) == 2
    assert [len(entry["top_logprobs"]) for entry in answer.logprobs] == [1, 1]


def test_past_max_bytes_the_answer_is_cut() -> None:
    data = wire("ollama", ["Zür", "ich"], "stop", True, probs=False)
    kind, answer, _ = check("ollama", data, [], "", None, 2)  # (inside the "ü")
    assert kind == "answer"
    assert (answer.text, answer.finish.reason, answer.finish.usage) == ("Z", "length", None)


def wire_answer(kind: str, body: bytes, sizes: list[int], gzipped: bool, lost: bool) -> bytes:
    """An HTTP answer with ``body`` chunked in ``sizes`` (``lost``: without its last chunk,
    the connection then closed)."""
    media = b"application/x-ndjson" if kind == "ollama" else b"text/event-stream"
    head = b"HTTP/1.1 200 OK\r\ncontent-type: %s\r\ntransfer-encoding: chunked\r\n" % media
    if gzipped:
        head += b"content-encoding: gzip\r\n"
        body = gzip.compress(body)
    wire = head + b"\r\n" + chunked(body, sizes)
    return wire.removesuffix(b"0\r\n\r\n") if lost else wire


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=15, deadline=None)
@given(
    pieces=st.lists(TEXT, min_size=1, max_size=6),
    sizes=st.lists(st.integers(1, 90), max_size=8),
    cuts=st.lists(st.integers(0, 5000), max_size=6),
    gzipped=st.booleans(),
    lost=st.booleans(),
)
def test_bulk_equals_streamed_through_the_backend_client(
    kind: str, pieces: list[str], sizes: list[int], cuts: list[int], gzipped: bool, lost: bool
) -> None:
    """Over loopback, through serve's backend client (blocks read straight from aiohttp's
    reader; a gzipped body through httpx's decoding), the connection kept alive after a
    whole answer read in bulk."""
    body = wire(kind, pieces, "stop", not lost, probs=False)  # (lost: before the finish)
    answer = wire_answer(kind, body, sizes, gzipped, lost)
    server = RawServer(lambda _: split(answer, cuts), close_after=lost)
    _, request = prepared(kind, None)

    async def go(bulk: bool) -> Outcome:
        async with server as url, client() as http:
            backend = make_backend(kind, url + "/v1" if kind == "openai" else url)
            outcomes: list[Outcome] = []
            for _ in range(2):
                response = await backend.open(
                    http, request.prompt, MODEL, request.params, request.request
                )
                try:
                    if bulk:
                        result = await read_answer(backend, response, request, None)
                    else:
                        events = answer_events(backend, response, request, None)
                        result = await collect(events)
                    outcomes.append(("answer", result, None))
                except BackendError as exc:
                    outcomes.append(("error", str(exc), exc.status))
                finally:
                    await response.aclose()
        assert outcomes[0] == outcomes[1]
        return outcomes[0]

    server.connections = 0
    streamed = asyncio.run(go(bulk=False))
    assert asyncio.run(go(bulk=True)) == streamed
    if lost:
        assert streamed == ("error", "the backend connection failed", 502)
    else:
        assert streamed[0] == "answer" and streamed[1].text == "".join(pieces)
        assert server.connections == 2  # one per run: the second request reused it
