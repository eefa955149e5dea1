"""JSON-list tool calls (``JSON_LIST``, Granite 3.x): history writer, decoder, and the
engine reading a syntax without a close marker."""

from __future__ import annotations

import itertools
import json
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from granite_formatters import Release
from granite_formatters._errors import InvalidRequestError
from granite_formatters._streaming import Delta
from granite_formatters._types import AssistantMessage, ToolCall
from granite_formatters.syntax import JSON_LIST, HistoryCall
from granite_formatters.syntax._json_list import decode_json_list

from support.history_writer import PlainWriter
from support.toy_release import toy_release

_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=6,
)
_OBJECTS = st.dictionaries(st.text(max_size=8), _JSON, max_size=4)
_NAMES = st.text(min_size=1, max_size=10).filter(str.strip)


def _ids() -> Any:
    count = iter(range(1000))
    return lambda: f"id{next(count)}"


# --------------------------------------------------------------------------- writing


def test_calls_follow_the_text_as_the_marker_and_one_compact_json_list() -> None:
    writer = PlainWriter()
    calls = [
        HistoryCall("get_weather", '{"city": "Paris"}', "messages[1].tool_calls[0].function"),
        HistoryCall("now", {}, "messages[1].tool_calls[1]"),
    ]
    written = JSON_LIST.write("Let me check.", calls, writer)
    assert written == (
        'Let me check.<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
        '{"name": "now", "arguments": {}}]'
    )
    assert writer.fields == ["messages[1].tool_calls[0].function", "messages[1].tool_calls[1]"]


@pytest.mark.parametrize("arguments", [None, "", "  "])
def test_null_or_blank_arguments_are_written_as_an_empty_object(arguments: Any) -> None:
    written = JSON_LIST.write("", [HistoryCall("f", arguments, "m")], PlainWriter())
    assert written == '<|tool_call|>[{"name": "f", "arguments": {}}]'


def test_arguments_that_are_a_string_but_not_json_are_refused_naming_the_field() -> None:
    call = HistoryCall("f", "city=Paris", "messages[2].tool_calls[0].function")
    with pytest.raises(InvalidRequestError) as caught:
        JSON_LIST.write("", [call], PlainWriter())
    assert caught.value.field == "messages[2].tool_calls[0].function.arguments"
    assert "'city=Paris'" in str(caught.value)


@given(
    text=st.text(max_size=10),
    calls=st.lists(st.tuples(_NAMES, _OBJECTS, st.booleans()), min_size=1, max_size=3),
)
def test_written_calls_decode_back_to_the_same_names_and_arguments(
    text: str, calls: list[tuple[str, dict[str, Any], bool]]
) -> None:
    history = [
        HistoryCall(name, json.dumps(arguments) if as_string else arguments, f"c[{number}]")
        for number, (name, arguments, as_string) in enumerate(calls)
    ]
    written = JSON_LIST.write(text, history, PlainWriter())
    before, marker, body = written.partition(JSON_LIST.open)
    assert (before, marker) == (text, "<|tool_call|>")
    reader = JSON_LIST.reader()
    assert JSON_LIST.body_start(body[0]) is None
    assert reader.scan(body, 0) == len(body)
    notes: list[str] = []
    decoded = JSON_LIST.decode(body, 0, notes, _ids(), None)
    assert decoded == [
        ToolCall(id=f"id{number}", name=name, arguments=arguments)
        for number, (name, arguments, _) in enumerate(calls)
    ]
    assert notes == []


# --------------------------------------------------------------------------- reading


def test_a_body_may_start_with_a_list_or_an_object_only() -> None:
    assert JSON_LIST.body_start("[") is None
    assert JSON_LIST.body_start("{") is None
    assert JSON_LIST.body_start("x") == "is not followed by JSON"
    assert (JSON_LIST.open, JSON_LIST.close) == ("<|tool_call|>", "")


def test_decoding_keeps_given_ids_numbers_from_the_first_index_and_reads_openai_items() -> None:
    body = (
        '[{"name": "a", "arguments": {"x": 1}, "id": "given"}, '
        '{"type": "function", "function": {"name": "b", "arguments": "{\\"y\\": 2}"}}]'
    )
    notes: list[str] = []
    calls = decode_json_list(body, 3, notes, _ids())
    assert calls == [
        ToolCall(id="given", name="a", arguments={"x": 1}),
        ToolCall(id="id0", name="b", arguments={"y": 2}),
    ]
    assert notes == []


def test_one_object_is_a_list_of_one_except_when_bare() -> None:
    body = '{"name": "a", "arguments": {}}'
    assert decode_json_list(body, 0, [], _ids()) == [ToolCall(id="id0", name="a", arguments={})]
    assert decode_json_list(body, 0, [], _ids(), bare=True) == "not a list of tool calls"
    assert decode_json_list("[]", 0, [], _ids(), bare=True) == "not a list of tool calls"
    assert decode_json_list("[]", 0, [], _ids()) == []


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("[1]", "item 0 is not a tool call object with a string 'name'"),
        ('[{"name": "a"}, {"name": " "}]', "item 1 is not a tool call object with a string 'name'"),
        ('"text"', "not a list of tool calls"),
    ],
)
def test_bodies_that_are_not_calls_say_why_and_add_no_note(body: str, why: str) -> None:
    notes: list[str] = []
    assert decode_json_list(body, 0, notes, _ids()) == why
    assert notes == []


def test_invalid_json_says_so() -> None:
    result = decode_json_list('[{"name": ', 0, [], _ids())
    assert isinstance(result, str)
    assert result.startswith("not valid JSON (")


def test_keys_not_read_are_noted() -> None:
    notes: list[str] = []
    calls = decode_json_list('[{"name": "a", "arguments": {}, "extra": 1}]', 0, notes, _ids())
    assert calls == [ToolCall(id="id0", name="a", arguments={})]
    assert len(notes) == 1
    assert "extra" in notes[0]


# --------------------------------------------------------------------------- read by the engine

#: A release of JSON-list tool calls and nothing else, run by the engine's parser.
LISTS = toy_release(
    "Toy lists",
    tool_calls=JSON_LIST,
)
CALL = '<|tool_call|>[{"name": "f", "arguments": {"a": 1}}]'


def _streamed(
    output: str, cuts: list[int], release: Release = LISTS, request: Any = None
) -> tuple[AssistantMessage, list[Delta]]:
    """The message and deltas of ``output`` streamed in the pieces ``cuts`` make."""
    parser = release.output_processor().stream_parser(request)
    bounds = [0, *sorted(c % (len(output) + 1) for c in cuts), len(output)]
    deltas = [d for a, b in itertools.pairwise(bounds) for d in parser.feed(output[a:b])]
    deltas += parser.close()
    assert parser.message is not None
    return parser.message, deltas


@pytest.mark.parametrize(
    ("output", "content"),
    [
        (CALL, ""),
        (CALL + "  \n", ""),
        ("Sure. " + CALL + " \n Done.", "Sure.  \n Done."),
        ("Sure.\n" + CALL + "\n\n", "Sure."),
    ],
)
@given(cuts=st.lists(st.integers(min_value=0), max_size=4))
def test_the_list_ends_the_block_where_its_json_ends(
    output: str, content: str, cuts: list[int]
) -> None:
    message, deltas = _streamed(output, cuts)
    assert (message.content, message.notes, message.raw_content) == (content, [], output)
    assert [(c.name, c.arguments) for c in message.tool_calls] == [("f", {"a": 1})]
    assert "".join(d.content or "" for d in deltas) == content
    assert [t.name for d in deltas for t in d.tool_calls] == ["f"]
    batch = LISTS.output_processor().transform(output)
    assert (batch.content, batch.notes) == (message.content, message.notes)


@given(cuts=st.lists(st.integers(min_value=0), max_size=4))
def test_a_list_cut_off_stays_content_and_says_so(cuts: list[int]) -> None:
    output = "Hi " + CALL[:-3]
    message, _ = _streamed(output, cuts)
    assert (message.content, message.tool_calls) == (output, [])
    assert message.notes == ["the <|tool_call|> block at offset 3 is cut off; kept as content"]


TOOLS = {"messages": [{"role": "user", "content": "q"}], "tools": [{"name": "f"}]}
LIST = '[{"name": "f", "arguments": {"a": 1}}]'


@pytest.mark.parametrize(
    ("output", "request_", "content", "names"),
    [
        (LIST, TOOLS, "", ["f"]),
        (" \n" + LIST + " Done.", TOOLS, "Done.", ["f"]),
        (LIST, None, LIST, []),
        (LIST, {"messages": TOOLS["messages"]}, LIST, []),
        ("Hi " + LIST, TOOLS, "Hi " + LIST, []),
        ("[1, 2]", TOOLS, "[1, 2]", []),
        ("[]", TOOLS, "[]", []),
        ('{"name": "f", "arguments": {}}', TOOLS, '{"name": "f", "arguments": {}}', []),
        (LIST[:-5], TOOLS, LIST[:-5], []),
        ("\u2003" + LIST, TOOLS, LIST, []),
    ],
)
@given(cuts=st.lists(st.integers(min_value=0), max_size=4))
def test_a_bare_list_at_the_start_is_read_only_when_tools_were_offered(
    output: str, request_: Any, content: str, names: list[str], cuts: list[int]
) -> None:
    message, deltas = _streamed(output, cuts, request=request_)
    assert (message.content, [c.name for c in message.tool_calls], message.notes) == (
        content,
        names,
        [],
    )
    assert "".join(d.content or "" for d in deltas) == content
    batch = LISTS.output_processor().transform(output, request_)
    assert (batch.content, batch.notes, len(batch.tool_calls)) == (content, [], len(names))


#: The same with Granite 3.x's further marker and the end marker it removes.
MARKED = attrs.evolve(LISTS, tool_call_markers=("<tool_call>",), tool_call_ends=("</tool_call>",))


@pytest.mark.parametrize(
    ("output", "content", "names", "notes"),
    [
        ("<tool_call>" + LIST + "</tool_call>", "", ["f"], []),
        ("A <tool_call>\n" + LIST + "\n</tool_call> B </tool_call>", "A \n B", ["f"], []),
        ("</tool_call>Hi", "Hi", [], ["removed </tool_call> at offset 0: it closes no tool call"]),
        ("<|tool_call|>[]", "", [], ["the <|tool_call|> block at offset 0 holds no call"]),
        (
            "<tool_call>x",
            "<tool_call>x",
            [],
            ["the <tool_call> block at offset 0 is not followed by JSON; kept as content"],
        ),
        ("<tool_call" + "|>", "<tool_call|>", [], []),
    ],
)
@given(cuts=st.lists(st.integers(min_value=0), max_size=4))
def test_further_markers_open_blocks_and_end_markers_are_removed(
    output: str, content: str, names: list[str], notes: list[str], cuts: list[int]
) -> None:
    message, deltas = _streamed(output, cuts, MARKED)
    assert (message.content, [c.name for c in message.tool_calls], message.notes) == (
        content,
        names,
        notes,
    )
    assert "".join(d.content or "" for d in deltas) == content
