"""The backends' SSE reader against a plain reference reader, for every chunking of the bytes."""

from __future__ import annotations

import asyncio
import codecs
import itertools
import re

import httpx
import pytest
from httpx_sse import SSEError
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters._serve.backends.sse import SSEReader, sse_data


def reference(stream: bytes) -> list[str]:
    """The SSE standard's parsing, on the whole stream at once (only ``data`` kept)."""
    text = stream.decode("utf-8", "replace").removeprefix("\ufeff")
    lines = re.split("\r\n|\r|\n", text)[:-1]  # the last line is unfinished
    events: list[str] = []
    data: list[str] = []
    for line in lines:
        if line == "":
            if data:
                events.append("\n".join(data))
            data = []
        elif line.startswith(":"):
            continue
        else:
            field, colon, value = line.partition(":")
            if colon and value.startswith(" "):
                value = value[1:]
            if field == "data":
                data.append(value)
    return events


def chunked(stream: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *sorted({c % (len(stream) + 1) for c in cuts}), len(stream)]
    return [stream[a:b] for a, b in itertools.pairwise(bounds)]


def read(chunks: list[bytes]) -> list[str]:
    reader = SSEReader()
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    out = [data for chunk in chunks for data in reader.feed(decoder.decode(chunk))]
    return out + reader.feed(decoder.decode(b"", True))


PART = st.sampled_from(
    [
        "data: ", "data:", "data", ":", ": comment", "event: x", "id: 1", "retry: 5", "\r\n",
        "\n", "\r", " ", "x", "{\"a\": 1}", "[DONE]", "Zürich", "😀", "\ufeff", "dat", "a:",
        "data:  two spaces",
    ]
)  # fmt: skip
STREAM = st.one_of(
    st.lists(PART, max_size=40).map(lambda parts: "".join(parts).encode()),
    st.lists(st.one_of(PART.map(str.encode), st.binary(max_size=3)), max_size=30).map(b"".join),
)


@given(stream=STREAM, cuts=st.lists(st.integers(0, 10_000), max_size=12))
def test_any_chunking_reads_as_the_reference(stream: bytes, cuts: list[int]) -> None:
    assert read(chunked(stream, cuts)) == reference(stream)


@pytest.mark.parametrize(
    ("stream", "events"),
    [
        (b"data: a\n\ndata: b\r\n\r\ndata: c\r\rdata: d\n", ["a", "b", "c"]),
        (b"data: 1\ndata:2\ndata\n\n", ["1\n2\n"]),
        (b': ping\n\nevent: x\ndata: {"k": 1}\nid: 3\n\n', ['{"k": 1}']),
        (b"\xef\xbb\xbfdata: bom\n\n", ["bom"]),
        (b"data: Z\xc3\xbcrich \xff\n\n", ["Zürich \ufffd"]),
    ],
)
def test_examples(stream: bytes, events: list[str]) -> None:
    assert read([stream]) == events
    assert read([stream[i : i + 1] for i in range(len(stream))]) == events


def test_not_an_event_stream_is_an_sse_error() -> None:
    async def run(content_type: str) -> list[str]:
        response = httpx.Response(
            200, headers={"content-type": content_type}, content=b"data: x\n\n"
        )
        return [data async for data in sse_data(response)]

    assert asyncio.run(run("text/event-stream; charset=utf-8")) == ["x"]
    with pytest.raises(SSEError):
        asyncio.run(run("application/json"))
