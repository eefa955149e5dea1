"""Granite 3.x tool-call parsing (``<|tool_call|>`` / ``<tool_call>`` and a JSON list, or a
bare leading list when tools were offered): every marker form, tolerated variations,
limits, determinism. The cases were written for the Granite 3 pipeline's tool-call
stage; they run through the one parser (a toy release declaring the 3.x tool calls), so
the content is stripped and the notes are worded as for every release.
"""

from __future__ import annotations

import json
import re
from typing import NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters import _jsonscan as jsonscan
from granite_formatters._jsonscan import JsonScanner
from granite_formatters._types import ToolCall
from granite_formatters.syntax import JSON_LIST

from support.granite3_output_support import cuts_for
from support.toy_release import toy_release

#: The Granite 3.x tool calls on a toy release.
TOY = toy_release(
    tool_calls=JSON_LIST,
    tool_call_markers=("<tool_call>",),
    tool_call_ends=("</tool_call>",),
)
TOOLS = {"messages": [{"role": "user", "content": "q"}], "tools": [{"name": "f"}]}


class ToolCallParse(NamedTuple):
    content: str
    tool_calls: list[ToolCall]
    notes: list[str]


def parse_tool_calls(text: str, *, tools_offered: bool = False) -> ToolCallParse:
    """The parse of the whole text (``tools_offered``: a request offering tools)."""
    message = TOY.output_processor().transform(text, TOOLS if tools_offered else None)
    return ToolCallParse(message.content, message.tool_calls, message.notes)


CALLS = (
    '[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "now", "arguments": {}}]'
)
EXPECTED = [("get_weather", {"city": "Paris"}), ("now", {})]


def names_args(calls: list[ToolCall]) -> list[tuple[str, object]]:
    return [(call.name, call.arguments) for call in calls]


@pytest.mark.parametrize("marker", ["<|tool_call|>", "<tool_call>"])
@pytest.mark.parametrize("lead", ["", "  ", "\n"])
@pytest.mark.parametrize("gap", ["", " ", "\n"])
def test_marked_list(marker: str, lead: str, gap: str) -> None:
    parsed = parse_tool_calls(lead + marker + gap + CALLS)
    assert names_args(parsed.tool_calls) == EXPECTED
    assert parsed.content == ""  # (the lead is whitespace: stripped)
    assert parsed.notes == []


def test_bare_list_only_when_tools_were_offered() -> None:
    text = "\n " + CALLS
    assert names_args(parse_tool_calls(text, tools_offered=True).tool_calls) == EXPECTED
    assert parse_tool_calls(text, tools_offered=True).content == ""
    plain = parse_tool_calls(text)
    assert plain.tool_calls == [] and plain.content == text.strip() and plain.notes == []


def test_bare_list_that_is_not_tool_calls_is_an_answer() -> None:
    for text in ("[1, 2, 3]", "[]", '[{"city": "Paris"}]', "[not json"):
        parsed = parse_tool_calls(text, tools_offered=True)
        assert parsed.tool_calls == [] and parsed.content == text and parsed.notes == []


def test_text_before_the_marker_and_after_the_json_is_content() -> None:
    parsed = parse_tool_calls("Let me check. <|tool_call|>" + CALLS + " I will report back.")
    assert names_args(parsed.tool_calls) == EXPECTED
    assert parsed.content == "Let me check.  I will report back."


def test_a_single_object_is_one_call() -> None:
    parsed = parse_tool_calls('<tool_call>{"name": "now", "arguments": {}}</tool_call>')
    assert names_args(parsed.tool_calls) == [("now", {})]
    assert parsed.content == ""


def test_openai_shape_parameters_and_string_arguments() -> None:
    text = (
        '<|tool_call|>[{"id": "call_1", "type": "function", "function": {"name": "a", '
        '"arguments": "{\\"x\\": 1}"}}, {"name": "b", "parameters": {"y": 2}}, {"name": "c"}]'
    )
    calls = parse_tool_calls(text).tool_calls
    assert names_args(calls) == [("a", {"x": 1}), ("b", {"y": 2}), ("c", {})]
    assert calls[0].id == "call_1"


def test_generated_ids_are_unique_per_call_across_parsers() -> None:
    text = '<|tool_call|>[{"name": "f", "arguments": {}}, {"name": "f", "arguments": {}}]'
    first = parse_tool_calls(text).tool_calls
    second = parse_tool_calls(text).tool_calls
    ids = [c.id for c in first + second]
    assert len(set(ids)) == 4  # the same call in two turns gets two ids
    assert all(re.fullmatch("call_[0-9a-f]{24}", i) for i in ids)
    # Within one parser: one random prefix, then the call counter.
    assert first[0].id[:21] == first[1].id[:21]
    assert [c.id[21:] for c in first] == ["00000000", "00000001"]


def test_two_marked_blocks() -> None:
    text = '<|tool_call|>[{"name": "a"}]\n<|tool_call|>[{"name": "b"}]'
    parsed = parse_tool_calls(text)
    assert [c.name for c in parsed.tool_calls] == ["a", "b"]
    assert parsed.content == ""
    assert len({c.id for c in parsed.tool_calls}) == 2


@pytest.mark.parametrize(
    ("text", "note"),
    [
        ('<|tool_call|>[{"name": "f", "arguments": {', "is cut off"),
        ('<|tool_call|>[{"name": "f"}}]', "is not a tool call: not valid JSON"),
        ('<|tool_call|>[{"arguments": {}}]', "item 0 is not a tool call object"),
        ('<|tool_call|>["f"]', "item 0 is not a tool call object"),
        ("<|tool_call|>[1, 2]", "item 0 is not a tool call object"),
        ("<|tool_call|> call f please", "is not followed by JSON"),
        ("<|tool_call|>", "is cut off"),
    ],
)
def test_invalid_tool_calls_stay_in_the_content(text: str, note: str) -> None:
    parsed = parse_tool_calls(text)
    assert parsed.tool_calls == []
    assert parsed.content == text
    assert len(parsed.notes) == 1 and note in parsed.notes[0]


def test_stray_closing_tag_is_removed_with_a_note() -> None:
    parsed = parse_tool_calls("Done.</tool_call>")
    assert parsed.content == "Done."
    assert parsed.notes == ["removed </tool_call> at offset 5: it closes no tool call"]


def test_json_bombs_are_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    deep = "<|tool_call|>" + "[" * 100 + "]" * 100
    parsed = parse_tool_calls(deep)
    assert parsed.tool_calls == [] and parsed.content == deep
    assert "nested deeper than 64 levels" in parsed.notes[0]

    monkeypatch.setattr(jsonscan, "MAX_JSON_CHARS", 50)
    big = '<|tool_call|>[{"name": "f", "arguments": {"x": "' + "y" * 100 + '"}}] tail'
    parsed = parse_tool_calls(big)
    assert parsed.tool_calls == [] and parsed.content == big
    assert "longer than 50 characters" in parsed.notes[0]
    # At exactly the limit the call is still parsed.
    exact = '[{"name": "f", "arguments": {"x": "' + "y" * 11 + '"}}]'
    assert len(exact) == 50
    assert parse_tool_calls("<|tool_call|>" + exact).tool_calls[0].name == "f"


def test_json_scanner_handles_strings_and_escapes() -> None:
    text = '[{"a": "]}\\"[{", "b": "\\\\"}] rest'
    scanner = JsonScanner()
    end = scanner.scan(text)
    assert end is not None and json.loads(text[:end]) == [{"a": ']}"[{', "b": "\\"}]


def test_what_is_not_a_call_list() -> None:
    # (The former pipeline's build_tool_calls reasons, as the parser reads them.)
    assert parse_tool_calls("<|tool_call|>{").notes == [
        "the <|tool_call|> block at offset 0 is cut off; kept as content"
    ]
    assert parse_tool_calls('<|tool_call|>"x"').notes == [
        "the <|tool_call|> block at offset 0 is not followed by JSON; kept as content"
    ]
    assert parse_tool_calls('{"name": "f"}', tools_offered=True) == ('{"name": "f"}', [], [])
    assert names_args(parse_tool_calls('<|tool_call|>{"name": "f"}').tool_calls) == [("f", {})]


def _chunked(text: str, cuts: list[int], tools: bool) -> tuple[str, list[ToolCall], list[str]]:
    parser = TOY.output_processor().stream_parser(TOOLS if tools else None)
    previous = 0
    for cut in [*cuts, len(text)]:
        parser.feed(text[previous:cut])
        previous = cut
    parser.close()
    message = parser.message
    assert message is not None
    return message.content, message.tool_calls, message.notes


SOUP = st.lists(
    st.sampled_from(
        ["<|tool_call|>", "<tool_call>", "</tool_call>", "<|tool", "[", "]", "{", "}", '"',
         "\\", " ", "\n", '{"name": "f"}', '"arguments": {}', ",", "x", "text. "]
    ),
    max_size=30,
).map("".join)  # fmt: skip


@given(data=st.data(), text=SOUP, tools=st.booleans())
def test_chunking_never_changes_the_result(data: st.DataObject, text: str, tools: bool) -> None:
    cuts = data.draw(cuts_for(text))
    batch = parse_tool_calls(text, tools_offered=tools)
    content, calls, notes = _chunked(text, cuts, tools)
    assert (content, _shape(calls), notes) == (batch.content, _shape(batch.tool_calls), batch.notes)


def _shape(calls: list[ToolCall]) -> list[tuple[str, str, object]]:
    """Calls with their generated ids reduced to the per-parser counter."""
    return [
        (c.id[21:] if re.fullmatch("call_[0-9a-f]{24}", c.id) else c.id, c.name, c.arguments)
        for c in calls
    ]


@given(text=SOUP, tools=st.booleans())
def test_nothing_is_lost(text: str, tools: bool) -> None:
    parsed = parse_tool_calls(text, tools_offered=tools)
    empty_list = any(note.endswith("holds no call") for note in parsed.notes)
    if not parsed.tool_calls and "</tool_call>" not in text and not empty_list:
        assert parsed.content == text.strip()


@pytest.mark.parametrize("marker", ["<|tool_call|>", "<tool_call>"])
def test_an_empty_call_list_is_removed_with_a_note(marker: str) -> None:
    parsed = parse_tool_calls(f"Nothing to call.{marker}[]", tools_offered=True)
    assert parsed == (
        "Nothing to call.",
        [],
        [f"the {marker} block at offset 16 holds no call"],
    )
    # Without a marker an empty list is an answer, not a tool call.
    assert parse_tool_calls("[]", tools_offered=True) == ("[]", [], [])


_SCANNER_STATE = ("_depth", "_in_string", "_escape", "consumed", "error", "stop")


@given(
    st.lists(st.text(alphabet='{}[]"\\ ab:,\n', max_size=6), max_size=30),
    st.booleans(),
)
def test_json_scanner_take_is_what_scan_does(pieces: list[str], array: bool) -> None:
    # Two scanners fed the same pieces: one tries take first, the other only scans.
    # Whenever take takes a piece, scan would have consumed it whole with no end and no
    # error; when it does not, nothing changed. Either way the states agree.
    fast, slow = JsonScanner(), JsonScanner()
    text = ("[" if array else "{") + "".join(pieces)
    taken = 0
    for piece in [text[:1], *pieces]:
        if fast.error is not None:
            break
        before = [getattr(fast, name) for name in _SCANNER_STATE]
        took = fast.take(piece)
        if not took:
            assert [getattr(fast, name) for name in _SCANNER_STATE] == before
            end = fast.scan(piece)
        slow_end = slow.scan(piece)
        if took:
            taken += 1
            assert slow_end is None and slow.stop == len(piece)
        else:
            assert end == slow_end
        assert [getattr(fast, name) for name in _SCANNER_STATE] == [
            getattr(slow, name) for name in _SCANNER_STATE
        ]
        if slow_end is not None:
            break


def test_json_scanner_take_takes_what_cannot_end_the_value() -> None:
    scanner = JsonScanner()
    assert scanner.scan('{"a') is None
    assert scanner.take("bc de")  # inside the string
    assert scanner.take('x", "b\\')  # a quote and an escape, no bracket
    assert not scanner.take('"}')  # could end the value
    assert not scanner.take('n"]')  # a bracket, even inside a string: scanned instead
    assert scanner.scan('n"') is None
    assert scanner.take(" : 12 ")
    assert scanner.scan("}") == 1


def test_json_scanner_take_follows_quotes_without_a_scan() -> None:
    # Quotes but no escape and no bracket: only their parity changes the state.
    scanner = JsonScanner()
    assert scanner.scan("{") is None
    inside = []
    for piece in ('"name": "lo', 'okup", "', 'n": '):  # three quotes, two, one
        assert scanner.take(piece)
        inside.append(scanner._in_string)
    assert inside == [True, True, False]
    assert scanner.consumed == 1 + 11 + 8 + 4
    assert scanner.scan("1}") == 2
