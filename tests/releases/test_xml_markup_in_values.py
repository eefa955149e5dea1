"""Granite 4.2 calls whose values hold tool-call markup (coding agents write files that
do), a missing ``</parameter>``, and the notes of broken XML blocks: never a plausible
wrong call, notes in the XML syntax's words, streaming equal to the batch parse."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters import get_formatter
from granite_formatters._types import AssistantMessage

from support.releases import with_feature

MODELS = [r.model for r in with_feature("xml-tool-calls")]


def _tool(name: str, *params: str) -> dict[str, Any]:
    properties = {p: {"type": "string"} for p in params}
    return {
        "type": "function",
        "function": {"name": name, "parameters": {"properties": properties}},
    }


TOOLS = [_tool("write_file", "path", "content"), _tool("get_current_weather", "city", "state")]
REQUEST: dict[str, Any] = {"messages": [{"role": "user", "content": "?"}], "tools": TOOLS}

# The repro: a file whose content holds a literal tool call.
INNER = "<tool_call>\n<function=write_file>\n<parameter=content>\nhello\n</parameter>\n</function>\n</tool_call>"
WRITE = (
    "<tool_call>\n<function=write_file>\n<parameter=path>\nfixture.py\n</parameter>\n"
    f'<parameter=content>\nEXAMPLE = """{INNER}"""\n</parameter>\n</function>\n</tool_call>'
)
DALLAS = (
    "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n"
    "<parameter=state>\nTX\n</parameter>\n</function>\n</tool_call>"
)


def _summary(message: AssistantMessage) -> tuple[Any, ...]:
    calls = [(call.name, call.arguments) for call in message.tool_calls]
    return (message.reasoning_content, message.content, calls, message.notes)


@pytest.mark.parametrize("model", MODELS)
def test_a_file_holding_a_tool_call_gives_no_call(model: str) -> None:
    message = get_formatter(model).parse("Write it.</think>\n" + WRITE, REQUEST)
    assert _summary(message) == (
        "Write it.",
        WRITE,
        [],
        [
            "the <tool_call> block at offset 18 is not a tool call: the value of 'content' holds "
            "<parameter=…> before its </parameter>: a </parameter> left out, or tool-call "
            "markup inside a value; kept as content"
        ],
    )


@pytest.mark.parametrize("model", MODELS)
def test_a_missing_closing_parameter_tag_is_recovered(model: str) -> None:
    message = get_formatter(model).parse("Check.</think>\n" + DALLAS, REQUEST)
    assert _summary(message) == (
        "Check.",
        "",
        [("get_current_weather", {"city": "Dallas", "state": "TX"})],
        [
            "tool call 0 ('get_current_weather'): <parameter=city> has no </parameter>; it "
            "ends where <parameter=state> starts"
        ],
    )


@pytest.mark.parametrize("model", MODELS)
def test_a_closing_tag_inside_a_value_is_text(model: str) -> None:
    output = (
        "x</think>\n<tool_call>\n<function=write_file>\n<parameter=content>\n"
        "a</parameter>b\n</parameter> </fun\n</parameter>\n</function>\n</tool_call>"
    )
    message = get_formatter(model).parse(output, REQUEST)
    assert _summary(message) == (
        "x",
        "",
        [("write_file", {"content": "a</parameter>b\n</parameter> </fun"})],
        [],
    )


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize(
    ("block", "reason"),
    [
        (
            "<tool_call>\n<function=f>\ntext\n</function>\n</tool_call>",
            "has text outside <parameter=…> in a <function=…>",
        ),
        (
            "<tool_call>\n<function=f>\n</function>\nmore",
            "is not closed by </tool_call> after its </function>",
        ),
        (
            "<tool_call>\n<function=f\n>\n</function>\n</tool_call>",
            "has a name that is not closed by '>' on its line",
        ),
    ],
)
def test_broken_blocks_are_noted_in_xml_words(model: str, block: str, reason: str) -> None:
    message = get_formatter(model).parse("x</think>\n" + block, REQUEST)
    assert message.notes == [f"the <tool_call> block at offset 10 {reason}; kept as content"]
    assert "JSON" not in message.notes[0]


_PIECES = st.sampled_from(
    [WRITE, DALLAS, INNER, "<tool_call>\n", "<function=write_file>\n", "<parameter=content>\n",
     "<parameter=state>\n", "</parameter>", "\n</parameter>\n", "</function>", "</tool_call>",
     "hello", "\n", " ", "<", "</", "</param", "</think>", "</tool_c", "all>"]
)  # fmt: skip


@pytest.mark.parametrize("model", MODELS)
@given(pieces=st.lists(_PIECES, max_size=10), data=st.data())
def test_stream_equals_batch(model: str, pieces: list[str], data: st.DataObject) -> None:
    text = "".join(pieces)
    formatter = get_formatter(model)
    batch = formatter.parse(text, REQUEST)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=8)))
    parser = formatter.stream_parser(REQUEST)
    for start, end in zip([0, *cuts], [*cuts, len(text)], strict=True):
        parser.feed(text[start:end])
    parser.close()
    assert parser.message is not None
    assert _summary(parser.message) == _summary(batch)
    assert parser.message.raw_content == batch.raw_content
