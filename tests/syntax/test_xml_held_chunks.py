"""Streamed Granite 4.2 blocks: the XML reader lets the parser hold small chunks of a
body back unread until a tag that can end the body arrives (``XmlBlockReader.holds``),
so a block streamed in small chunks is read in a few scans, and the message is still
the batch parse's."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters import get_formatter
from granite_formatters.syntax import _xml_functions as xml_functions
from granite_formatters.syntax._call_stage import CallStage
from granite_formatters.syntax._xml_functions import XmlBlockReader

REQUEST = {
    "messages": [{"role": "user", "content": "Weather?"}],
    "tools": [
        {
            "name": "get_weather",
            "parameters": {"properties": {"city": {"type": "string"}, "n": {"type": "integer"}}},
        }
    ],
}
CALL = (
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
    "<parameter=n>\n3\n</parameter>\n</function>\n</tool_call>"
)


def _streamed(text: str, size: int) -> Any:
    parser = get_formatter("granite-4.2-8b").stream_parser(REQUEST)
    for start in range(0, len(text), size):
        parser.feed(text[start : start + size])
    parser.close()
    return parser.message


def test_a_chunk_may_wait_until_a_tag_that_ends_the_body() -> None:
    reader = XmlBlockReader()
    assert reader.holds("\nPar", [])
    assert reader.holds("<parameter=n>", ["is\n"])
    assert reader.holds("</parameter>", [])
    assert not reader.holds("</function>", [])
    # An end tag cut across the chunks held before it.
    assert not reader.holds("ion>", ["<", "/", "funct"])
    assert not reader.holds("l>", ["</tool_cal"])
    assert reader.holds("n>", ["<parameter=locatio"])


def test_a_block_streamed_in_small_chunks_is_read_in_few_scans(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scans: list[int] = []
    original = XmlBlockReader.scan

    def counted(self: XmlBlockReader, text: str, pos: int = 0) -> int | None:
        scans.append(len(text) - pos)
        return original(self, text, pos)

    monkeypatch.setattr(xml_functions.XmlBlockReader, "scan", counted)
    message = _streamed("Plan.</think>\nSure.\n" + CALL, 4)
    assert [(call.name, call.arguments) for call in message.tool_calls] == [
        ("get_weather", {"city": "Paris", "n": 3})
    ]
    assert len(scans) <= 3, scans


def test_a_body_that_fails_while_held_is_kept_as_content_as_in_a_batch_parse() -> None:
    broken = "<tool_call>\n<function=get_weather>\nstray text\n<parameter=city>\nParis\n"
    text = "Plan.</think>\nSure.\n" + broken + "</parameter>\n</function>\n</tool_call> Done."
    batch = get_formatter("granite-4.2-8b").parse(text, REQUEST)
    assert batch.tool_calls == []
    assert batch.content == "Sure.\n" + text[len("Plan.</think>\nSure.\n") :]
    for size in (1, 2, 4, 7):
        streamed = _streamed(text, size)
        assert (streamed.content, streamed.notes, streamed.tool_calls) == (
            batch.content,
            batch.notes,
            batch.tool_calls,
        )


def test_a_long_body_is_not_held_without_bound() -> None:
    value = "x" * 300 + "<"  # (a "<" keeps the reader's own cheap path off)
    text = "Plan.</think>\n<tool_call>\n<function=get_weather>\n<parameter=city>\n" + value
    parser = get_formatter("granite-4.2-8b").stream_parser(REQUEST)
    for start in range(0, len(text), 4):
        parser.feed(text[start : start + 4])
    stage = parser._stage  # type: ignore[attr-defined]
    assert isinstance(stage, CallStage)
    assert 0 < stage.held <= 256


@given(
    cut=st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=40),
    body=st.sampled_from(
        [
            CALL,
            CALL.replace("</function>\n", ""),
            CALL.replace("<parameter=n>", "<parameter=n"),
            CALL.replace("\nParis\n", "\nPa</parameter>ris\n"),
            CALL.replace("</tool_call>", "") + " tail",
            CALL[:-20],
        ]
    ),
)
def test_held_chunks_stream_as_the_batch_parse(cut: list[int], body: str) -> None:
    text = "Plan.</think>\nA.\n" + body + "\nB."
    batch = get_formatter("granite-4.2-8b").parse(text, REQUEST)
    parser = get_formatter("granite-4.2-8b").stream_parser(REQUEST)
    start, sizes = 0, iter(cut * (len(text) // len(cut) + 1))
    while start < len(text):
        size = next(sizes)
        parser.feed(text[start : start + size])
        start += size
    parser.close()
    streamed = parser.message
    assert streamed is not None
    assert (streamed.content, streamed.reasoning_content, streamed.notes) == (
        batch.content,
        batch.reasoning_content,
        batch.notes,
    )
    assert [(c.name, c.arguments) for c in streamed.tool_calls] == [
        (c.name, c.arguments) for c in batch.tool_calls
    ]
