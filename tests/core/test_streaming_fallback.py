"""The fallback stream parser that every output processor gets by default."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters._processors import Formatter
from granite_formatters._streaming import (
    BufferedStreamParser,
    ChunkText,
    Delta,
    ToolCallDelta,
    tool_call_delta,
)
from granite_formatters._types import AssistantMessage, ToolCall

from support.toy_plugins import EchoOutput


def test_default_stream_parser_buffers_and_parses_on_close() -> None:
    parser = EchoOutput().stream_parser()
    assert isinstance(parser, BufferedStreamParser)
    assert parser.feed("ab") == [] and parser.feed("c") == []
    # Read into a name: mypy would keep `parser.message` narrowed to None past close().
    before_close = parser.message
    assert before_close is None
    assert parser.close() == [Delta(content="ABC", role="assistant", finish_reason="stop")]
    assert parser.message == AssistantMessage(content="ABC")
    assert parser.close() == []
    with pytest.raises(RuntimeError):
        parser.feed("more")


def test_fallback_emits_reasoning_and_tool_calls() -> None:
    message = AssistantMessage(
        content="",
        reasoning_content="why",
        tool_calls=[ToolCall(id="call_0", name="f", arguments={"x": 1})],
    )
    parser = BufferedStreamParser(lambda text: message)
    parser.feed("anything")
    (delta,) = parser.close()
    assert delta == Delta(
        reasoning_content="why",
        tool_calls=(ToolCallDelta(index=0, id="call_0", name="f", arguments='{"x": 1}'),),
        role="assistant",
        finish_reason="tool_calls",
    )
    assert delta.to_openai_choice()["finish_reason"] == "tool_calls"
    assert delta.to_openai() == {
        "role": "assistant",
        "reasoning_content": "why",
        "tool_calls": [
            {
                "index": 0,
                "id": "call_0",
                "type": "function",
                "function": {"name": "f", "arguments": '{"x": 1}'},
            }
        ],
    }


def test_empty_output_gives_only_the_role_and_finish_reason() -> None:
    parser = BufferedStreamParser(lambda text: AssistantMessage(content=text))
    assert parser.close("length") == [Delta(role="assistant", finish_reason="length")]
    assert parser.message == AssistantMessage(content="")


def test_formatter_stream_parser_delegates_to_the_output_processor() -> None:
    from support.toy_plugins import EchoInput

    formatter = Formatter("m", EchoInput(), EchoOutput())
    parser = formatter.stream_parser({"messages": [{"role": "user", "content": "x"}]})
    parser.feed("hi")
    assert parser.close() == [Delta(content="HI", role="assistant", finish_reason="stop")]


def test_fallback_decodes_utf8_bytes_cut_anywhere() -> None:
    # As the bundled parsers do: one incremental decoder per stream, and a character
    # cut off at the end becomes U+FFFD instead of being dropped.
    parser = BufferedStreamParser(lambda text: AssistantMessage(content=text))
    for piece in (b"caf\xc3", b"\xa9 ", "and text ", b"\xe6\x97"):
        assert parser.feed(piece) == []
    parser.close()
    assert parser.message == AssistantMessage(content="café and text \ufffd")


def test_chunk_text() -> None:
    text_of = ChunkText()
    assert text_of.end() == ""  # nothing decoded yet
    assert [text_of(c) for c in ("a", b"\xc3", memoryview(b"\xa9"), None, 7)] == [
        "a",
        "",
        "é",
        "",
        "7",
    ]
    assert text_of(b"\xff") == "\ufffd"  # not UTF-8
    assert text_of(b"\xf0\x9f") == "" and text_of.end() == "\ufffd"


def test_chunk_text_keeps_order_when_a_str_follows_a_cut_character() -> None:
    text_of = ChunkText()
    before = text_of.decoding
    assert text_of(b"caf\xc3") == "caf"
    assert (before, text_of.decoding) == (False, True)
    assert text_of("X") == "\ufffdX"  # the cut character ends before the str's text
    assert text_of(b"\xa9") == "\ufffd"  # a continuation byte alone
    assert text_of(None) == "" and text_of(b"\xc3\xa9") == "é" and text_of.end() == ""


@given(
    arguments=st.one_of(
        st.none(),
        st.dictionaries(
            st.text(max_size=5),
            st.recursive(
                st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                lambda inner: (
                    st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=3), inner, max_size=3)
                ),
                max_leaves=6,
            ),
            max_size=4,
        ),
    )
)
def test_a_tool_call_delta_carries_the_arguments_as_the_openai_form_writes_them(
    arguments: dict[str, Any] | None,
) -> None:
    call = ToolCall(id="call_0", name="f", arguments=arguments)
    assert tool_call_delta(3, call) == ToolCallDelta(
        index=3, id="call_0", name="f", arguments=call.to_openai()["function"]["arguments"]
    )
