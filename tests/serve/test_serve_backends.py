"""Each backend adapter against its wire format cut at arbitrary byte boundaries (in process)."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from granite_formatters._serve.backends import BackendError, Finish, Piece, make_backend
from granite_formatters._serve.backends.base import clean_text
from granite_formatters._serve.params import GenerationParams, backend_fields

from .conftest import KINDS
from .servers import wire_events

TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=60)


class Body(httpx.AsyncByteStream):
    def __init__(self, parts: list[bytes]) -> None:
        self.parts = parts

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for part in self.parts:
            yield part


def run(kind: str, parts: list[bytes]) -> list[Piece | Finish]:
    backend = make_backend(kind, "http://backend.test/v1")

    def handler(request: httpx.Request) -> httpx.Response:
        media = "application/x-ndjson" if kind == "ollama" else "text/event-stream; charset=utf-8"
        return httpx.Response(200, stream=Body(parts), headers={"content-type": media})

    async def go() -> list[Piece | Finish]:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            params = GenerationParams(model="m", max_tokens=100)
            response = await backend.open(client, "prompt", "m", params, {"max_tokens": 100})
            try:
                return [event async for event in backend.stream(response)]
            finally:
                await response.aclose()

    return asyncio.run(go())


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    bounds = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


@pytest.mark.parametrize("kind", KINDS)
@given(
    pieces=st.lists(TEXT, max_size=8),
    cuts=st.lists(st.integers(0, 10_000), max_size=12),
    length=st.booleans(),
)
@example(pieces=["a\x85b\u2028c\r\nd", "é🌤️"], cuts=[3, 100, 101, 102], length=False)
def test_any_byte_boundaries(kind: str, pieces: list[str], cuts: list[int], length: bool) -> None:
    finish = "length" if length else "stop"
    data = b"".join(wire_events(kind, "m", pieces, finish, complete=True))
    events = run(kind, split(data, cuts))
    assert isinstance(events[-1], Finish)
    assert events[-1].reason == finish
    assert events[-1].usage is not None and events[-1].usage.completion_tokens == len(pieces)
    texts = [e.text for e in events[:-1] if isinstance(e, Piece)]
    assert "".join(texts) == "".join(pieces)
    assert len(events) == len(texts) + 1


@pytest.mark.parametrize("kind", KINDS)
@given(stop=st.text(min_size=1, max_size=12), cuts=st.lists(st.integers(0, 10_000), max_size=6))
def test_the_matched_stop_string_is_read(kind: str, stop: str, cuts: list[int]) -> None:
    data = b"".join(wire_events(kind, "m", ["a", "b"], "stop", complete=True, stop=stop))
    (*_, finish) = run(kind, split(data, cuts))
    assert isinstance(finish, Finish) and finish.reason == "stop"
    # (Ollama does not say which stop string matched.)
    assert finish.stop_reason == (None if kind == "ollama" else stop)


@pytest.mark.parametrize(
    ("given", "read"),
    [(7, 7), ("</s>", "</s>"), ("", None), (None, None), (True, None), (1.5, None)],
)
def test_vllm_stop_reason_is_a_string_or_a_token_id(given: Any, read: Any) -> None:
    data = b"".join(wire_events("openai", "m", ["a"], "stop", complete=True))
    data = data.replace(b'"stop_reason": null', json.dumps({"stop_reason": given})[1:-1].encode())
    (*_, finish) = run("openai", [data])
    assert isinstance(finish, Finish) and finish.stop_reason == read


@pytest.mark.parametrize("kind", KINDS)
@given(
    pieces=st.lists(TEXT, min_size=1, max_size=5), cuts=st.lists(st.integers(0, 10_000), max_size=5)
)
def test_a_stream_without_its_end_is_an_error(
    kind: str, pieces: list[str], cuts: list[int]
) -> None:
    data = b"".join(wire_events(kind, "m", pieces, "stop", complete=False))
    with pytest.raises(BackendError, match="ended before"):
        run(kind, split(data, cuts))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "wire",
    [
        b"data: not json\n\n",
        b"not json at all\n",
        b'data: {"error": {"message": "model crashed"}}\n\n',
        b'{"error": "model crashed"}\n',
    ],
)
def test_malformed_or_error_events(kind: str, wire: bytes) -> None:
    with pytest.raises(BackendError) as info:
        run(kind, [wire])
    assert info.value.status == 502
    message = str(info.value)
    assert "malformed" in message or "reported an error" in message or "ended before" in message
    assert "model crashed" not in message  # backend text never reaches the client


def test_a_json_answer_instead_of_a_stream_is_502() -> None:
    backend = make_backend("openai", "http://backend.test/v1")

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"choices": [{"text": "hi"}]})

    async def go() -> None:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            params = GenerationParams(model="m", max_tokens=100)
            response = await backend.open(client, "prompt", "m", params, {"max_tokens": 100})
            try:
                [event async for event in backend.stream(response)]
            finally:
                await response.aclose()

    with pytest.raises(BackendError, match="did not answer with an event stream"):
        asyncio.run(go())


@pytest.mark.parametrize("kind", KINDS)
def test_request_bodies(kind: str) -> None:
    request = {"model": "m", "temperature": 0, "stop": "x", "max_tokens": 3}
    params = GenerationParams.model_validate(request)
    fields = backend_fields(kind, request, params, ("<|end_of_text|>",))
    body: dict[str, Any] = make_backend(kind, "http://h").body("P", "backend-model", fields)
    assert body["prompt"] == "P" and body["stream"] is True
    if kind == "ollama":
        assert body["raw"] is True and body["options"] == {
            "stop": ["<|end_of_text|>", "x"],
            "temperature": 0,
            "num_predict": 3,
        }
    else:
        assert body["stop"] == ["<|end_of_text|>", "x"] and body["temperature"] == 0
    urls = {
        "openai": "http://h/completions",
        "llamacpp": "http://h/completion",
        "ollama": "http://h/api/generate",
    }
    assert make_backend(kind, "http://h/").url == urls[kind]


@given(st.lists(st.one_of(TEXT, st.characters(categories=["Cs"])), max_size=8).map("".join))
@example("bad \ud83d char")
def test_backend_text_has_each_lone_surrogate_as_u_fffd(text: str) -> None:
    """What a backend sends is kept but for lone surrogates (one U+FFFD each), which
    JSON escapes can carry and UTF-8 cannot."""
    expected = "".join("\ufffd" if "\ud800" <= char <= "\udfff" else char for char in text)
    assert clean_text(text) == expected
