"""A small Server-Sent Events reader: the ``data`` of each event of a backend's stream.

It reads what the backends send (``data:`` lines, comments, other fields ignored) with
fewer allocations per event than a general client: lines end at ``\\r\\n``, ``\\n`` or
``\\r`` (also when split across network chunks), multi-byte UTF-8 characters may be split
across chunks (invalid bytes become U+FFFD), an event's several ``data`` lines are joined
with ``\\n``, and an event the stream ends in the middle of is dropped (as the SSE standard
says). Events without data are not reported.
"""

from __future__ import annotations

import codecs
from collections.abc import AsyncIterator, Iterable, Iterator

import httpx
from httpx_sse import SSEError

__all__ = ["SSEFrames", "SSEReader", "check_event_stream", "sse_data"]


class SSEReader:
    """Incremental parser: :meth:`feed` text, get the data of each completed event."""

    def __init__(self) -> None:
        self._line = ""  # the start of an unfinished line
        self._data: list[str] = []
        self._started = False
        self._after_cr = False  # the last text ended with "\r" (its "\n" may follow)

    def feed(self, text: str) -> list[str]:
        if not text:
            return []
        if not self._started:
            self._started = True
            if text[0] == "\ufeff":
                text = text[1:]
        if self._after_cr and text[:1] == "\n":
            text = text[1:]
        self._after_cr = False
        if "\r" in text:
            self._after_cr = text[-1] == "\r"
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        if "\n" not in text:
            self._line += text
            return []
        lines = text.split("\n")
        if self._line:
            lines[0] = self._line + lines[0]
        self._line = lines.pop()
        return list(self._events(lines))

    def _events(self, lines: Iterable[str]) -> Iterator[str]:
        data = self._data
        for line in lines:
            if not line:  # the end of an event
                if data:
                    yield "\n".join(data)
                    data.clear()
            elif line.startswith("data:"):
                data.append(line[6:] if line[5:6] == " " else line[5:])
            elif line[0] != ":":  # (a comment)
                field, _, value = line.partition(":")
                if field == "data":
                    data.append(value[1:] if value[:1] == " " else value)


class SSEFrames:
    """The data of a byte stream's events: :meth:`feed` the bytes as they arrive (a
    character or an event may be split across blocks), :meth:`end` at the stream's end."""

    def __init__(self) -> None:
        self._reader = SSEReader()
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def feed(self, block: bytes) -> list[str]:
        return self._reader.feed(self._decoder.decode(block))

    def end(self) -> list[str]:
        return self._reader.feed(self._decoder.decode(b"", True))


def check_event_stream(response: httpx.Response) -> None:
    """:class:`~httpx_sse.SSEError` unless ``response`` is an event stream."""
    content_type = response.headers.get("content-type", "").partition(";")[0]
    if "text/event-stream" not in content_type:
        raise SSEError(f"expected an event stream, got Content-Type {content_type[:100]!r}")


async def sse_data(response: httpx.Response) -> AsyncIterator[str]:
    """The data of each event of ``response``; :class:`~httpx_sse.SSEError` when it is not
    an event stream."""
    check_event_stream(response)
    frames = SSEFrames()
    async for block in response.aiter_bytes():
        for data in frames.feed(block):
            yield data
    for data in frames.end():
        yield data
