"""A non-streaming client's answer read in bulk (``read_answer``) against the same backend
stream read event by event (``collect`` of ``answer_events``): equal for every backend
type and any cut of the backend's bytes, also when the stream fails; and the answer asked
for whole (one JSON body) against the same answer streamed."""

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
from granite_formatters._serve.backends.base import encode_json, whole_body_limit
from granite_formatters._serve.exchange import (
    Answer,
    Prepared,
    answer_events,
    collect,
    prepare,
    read_answer,
)

from .conftest import KINDS
from .servers import whole_body, wire_events
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
    kind: str,
    parts: list[bytes],
    lost: bool,
    top: int | None,
    max_bytes: int | None,
    bulk: bool,
    whole: bool = False,
    streamed_whole: bool = False,
) -> Outcome:
    """What serve makes of the backend's bytes ``parts``; ``whole``: an answer asked for
    whole (``streamed_whole``: asked for whole, but the backend streams)."""
    backend, request = prepared(kind, top)

    def handler(_: httpx.Request) -> httpx.Response:
        media = "application/x-ndjson" if kind == "ollama" else "text/event-stream"
        if whole:
            media = "application/json"
        return httpx.Response(200, stream=Body(parts, lost), headers={"content-type": media})

    async def go() -> Answer:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            response = await backend.open(
                client, request.prompt, MODEL, request.params, request.request
            )
            try:
                if bulk:
                    as_whole = whole or streamed_whole
                    return await read_answer(backend, response, request, max_bytes, as_whole)
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


#: The servers behind each backend type: (type, ``/v1/completions`` flavour).
SERVERS = [("openai", "vllm"), ("openai", "llamacpp"), ("llamacpp", "vllm"), ("ollama", "vllm")]


@pytest.mark.parametrize(("kind", "flavour"), SERVERS)
@given(
    pieces=st.lists(TEXT, max_size=8),
    cuts=st.lists(st.integers(0, 10_000), max_size=12),
    length=st.booleans(),
    stop=st.none() | st.sampled_from(["END", "\n\n"]),
    probs=st.booleans(),
    top=st.none() | st.integers(0, 3),
    max_bytes=st.none() | st.integers(0, 80),
    lost=st.booleans(),
)
@example(pieces=["Zür", "ich"], cuts=[], length=False, stop=None, probs=True, top=1,
         max_bytes=2, lost=False)  # fmt: skip
@example(pieces=["a", "b", "c"], cuts=[], length=False, stop=None, probs=True, top=0,
         max_bytes=1, lost=False)  # fmt: skip
# (a token that prints nothing, llama.cpp's probabilities still sent for it)
@example(pieces=[""], cuts=[], length=False, stop=None, probs=True, top=None,
         max_bytes=None, lost=False)  # fmt: skip
def test_whole_equals_streamed(
    kind: str,
    flavour: str,
    pieces: list[str],
    cuts: list[int],
    length: bool,
    stop: str | None,
    probs: bool,
    top: int | None,
    max_bytes: int | None,
    lost: bool,
) -> None:
    """The answer asked for whole (one JSON body in the backend's real shape, in any
    reads) is the one the same answer streamed gives: text, logprobs in each shape, the
    finish (``length``, the matched stop string, the usage), ``--max-output-bytes``, text
    without the logprobs asked for; a body cut by a lost connection is an error."""
    if kind == "ollama" or (kind == "openai" and flavour == "llamacpp"):
        stop = None  # (Ollama never says; llama.cpp's /v1/completions neither)
    finish = "stop" if stop is not None or not length else "length"
    n_probs = 3 if probs and kind != "openai" else 0
    if kind == "openai" and flavour == "llamacpp":
        n_probs = 2 if probs else 0
    streamed_wire = wire_events(
        kind, "m", pieces, finish, True, probs, stop=stop, flavour=flavour, n_probs=n_probs
    )
    events = b"".join(streamed_wire)
    body = encode_json(
        whole_body(kind, "m", pieces, finish, probs, stop=stop, flavour=flavour, n_probs=n_probs)
    )
    if top is not None and kind == "ollama":
        top = None  # (no logprobs from Ollama: a 400 before any request)
    streamed = outcome(kind, split(events, cuts), False, top, max_bytes, bulk=False)
    got = outcome(kind, split(body, cuts), lost, top, max_bytes, bulk=True, whole=True)
    if lost:
        assert got == ("error", "the backend connection failed", 502)
    else:
        assert got == streamed


@pytest.mark.parametrize("kind", KINDS)
def test_a_backend_that_streams_when_asked_for_a_whole_answer(kind: str) -> None:
    """A backend that ignores ``"stream": false`` and streams (its media type says so) is
    read as a stream: the same answer."""
    data = wire(kind, ["Hel", "lo é"], "stop", True, probs=False)
    streamed = outcome(kind, [data], False, None, None, bulk=False)
    assert streamed[0] == "answer" and streamed[1].text == "Hello é"
    assert outcome(kind, [data], False, None, None, bulk=True, streamed_whole=True) == streamed


def test_a_whole_body_over_its_limit_is_an_error() -> None:
    """An answer asked for whole is read up to a bound from ``--max-output-bytes`` (JSON
    may escape a byte of text as six): a larger body is a 502, never held in memory."""
    pieces = ["\x01" * 1000] * 200  # (each escaped as \u0001: six bytes of JSON)
    body = encode_json(whole_body("openai", "m", pieces, "stop"))
    limit = whole_body_limit(1000, False)
    assert 200_000 < limit < len(body)
    got = outcome("openai", [body], False, None, 200_000, bulk=True, whole=True)
    assert got[0] == "answer" and got[1].text == "".join(pieces)
    got = outcome("openai", [body], False, None, 1000, bulk=True, whole=True)
    assert got == ("error", f"the backend's answer is over {limit} bytes", 502)


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
