"""Granite 4 output parsing: content, <tool_call> blocks, notes; exact strings.

Includes real Granite 4 tool-call outputs from public test suites (sources named at
each sample).
"""

from __future__ import annotations

import json
import re

import pytest

from granite_formatters import get_formatter
from granite_formatters.types import AssistantMessage
from granite_formatters_granite4.releases import GRANITE41

PARSER = GRANITE41.output_processor()


def parse(text: str) -> AssistantMessage:
    return PARSER.transform(text)


def calls(message: AssistantMessage) -> list[tuple[str, object]]:
    return [(call.name, call.arguments) for call in message.tool_calls]


# --------------------------------------------------------------------------- real outputs

# llama.cpp, tests/test-chat.cpp (PR ggml-org/llama.cpp#20686, "add Granite 4 template to
# autoparser test suite"): the tool-call output of the Granite 4.0 template test.
LLAMA_CPP_SAMPLE = (
    '<tool_call>\n{"name": "special_function", "arguments": {"arg1": 1}}\n</tool_call>'
)

# vLLM, tests/tool_parsers/test_granite4_tool_parser.py (test_tool_call_parser_complex,
# model ibm-granite/granite-4.0-h-tiny): prose interleaved with blocks written as
# "<tool_call> " + json.dumps(call) + " </tool_call>", arguments given as a JSON string
# ("test granite behavior").
_COORDS = {"coordinates": [[23.54, 43.1], [-12.2, 54.3], [4, 5]], "coordinate_type": "latlong"}
_STOCK = {"symbol": "AAPL", "start_date": "2021-01-01", "end_date": "2021-12-31"}
_VLLM_CALLS = [
    {"name": "find_bbox", "arguments": json.dumps(_COORDS)},
    {"name": "get_stock_price", "arguments": _STOCK},
    {"name": "find_bbox", "arguments": json.dumps(_COORDS)},
]
_VLLM_TEXT = [
    "Here goes the bbox call: \n",
    " Now the stock price call: \n ",
    " Now another bbox call: \n ",
    " See? I'm a helpful assistant.",
]
VLLM_SAMPLE = "".join(
    text + ("<tool_call> " + json.dumps(call) + " </tool_call>" if i < 3 else "")
    for i, (text, call) in enumerate(zip(_VLLM_TEXT, [*_VLLM_CALLS, {}], strict=True))
)

# A C++ agent project's regression test for ggml-org/llama.cpp#18675 (tool calls returned
# as raw text), parsing a Granite 4.0 (ibm-granite-granite-4.0.jinja) response.
AGENT_CPP_SAMPLE = (
    '<tool_call>\n{"name": "calculator", "arguments": {"a": 3, "b": 4, "operation": "add"}}'
    "\n</tool_call>"
)


def test_llama_cpp_sample() -> None:
    message = parse(LLAMA_CPP_SAMPLE)
    assert message.content == ""
    assert calls(message) == [("special_function", {"arg1": 1})]
    assert message.notes == []
    assert message.raw_content == LLAMA_CPP_SAMPLE


def test_vllm_interleaved_sample_with_string_arguments() -> None:
    message = parse(VLLM_SAMPLE)
    assert calls(message) == [
        ("find_bbox", _COORDS),
        ("get_stock_price", _STOCK),
        ("find_bbox", _COORDS),
    ]
    assert message.content == (
        "Here goes the bbox call: \n Now the stock price call: \n  Now another bbox call: \n  "
        "See? I'm a helpful assistant."
    )
    # to_openai() encodes the unwrapped arguments once.
    openai = message.to_openai()["tool_calls"]
    assert [json.loads(c["function"]["arguments"]) for c in openai] == [_COORDS, _STOCK, _COORDS]


def test_agent_cpp_sample() -> None:
    assert calls(parse(AGENT_CPP_SAMPLE)) == [("calculator", {"a": 3, "b": 4, "operation": "add"})]


# --------------------------------------------------------------------------- point 5


def test_plain_text() -> None:
    message = parse("The capital of France is Paris.")
    assert message.content == "The capital of France is Paris."
    assert message.tool_calls == []
    assert message.reasoning_content is None
    assert message.notes == []


def test_blocks_with_and_without_newlines_and_prose_around() -> None:
    text = (
        "Checking both.\n"
        '<tool_call>{"name": "a", "arguments": {"x": 1}}</tool_call>'
        " and "
        '<tool_call>\n{"name": "b", "arguments": {}}\n</tool_call>\n'
        "Done."
    )
    message = parse(text)
    assert calls(message) == [("a", {"x": 1}), ("b", {})]
    assert message.content == "Checking both.\n and \nDone."
    assert message.raw_content == text


def test_arguments_before_name() -> None:
    message = parse('<tool_call>\n{"arguments": {"city": "Rome"}, "name": "w"}\n</tool_call>')
    assert calls(message) == [("w", {"city": "Rome"})]


def test_string_arguments_are_unwrapped_once() -> None:
    # A string holding a JSON string is decoded once only: the result is that string.
    twice = json.dumps(json.dumps(json.dumps({"q": 1})))
    message = parse('<tool_call>{"name": "f", "arguments": ' + twice + "}</tool_call>")
    assert calls(message) == [("f", json.dumps({"q": 1}))]
    once = parse('<tool_call>{"name": "f", "arguments": "{\\"q\\": 1}"}</tool_call>')
    assert calls(once) == [("f", {"q": 1})]
    assert once.to_openai()["tool_calls"][0]["function"]["arguments"] == '{"q": 1}'


def test_closing_tag_inside_a_json_string_does_not_end_the_call() -> None:
    text = '<tool_call>{"name": "echo", "arguments": {"s": "a</tool_call>b"}}</tool_call>tail'
    message = parse(text)
    assert calls(message) == [("echo", {"s": "a</tool_call>b"})]
    assert message.content == "tail"


def test_missing_arguments_are_empty_and_ids_are_unique_across_turns() -> None:
    first = parse('<tool_call>{"name": "now"}</tool_call>')
    assert calls(first) == [("now", {})]
    assert re.fullmatch("call_[0-9a-f]{24}", first.tool_calls[0].id)
    # The same call in another turn (another parse) is another call: another id.
    assert (
        parse('<tool_call>{"name": "now"}</tool_call>').tool_calls[0].id != first.tool_calls[0].id
    )
    given = parse('<tool_call>{"id": "c7", "name": "now", "arguments": {}}</tool_call>')
    assert given.tool_calls[0].id == "c7"


def test_a_list_in_one_block() -> None:
    message = parse('<tool_call>[{"name": "a", "arguments": {}}, {"name": "b"}]</tool_call>')
    assert calls(message) == [("a", {}), ("b", {})]
    assert len({call.id for call in message.tool_calls}) == 2


@pytest.mark.parametrize(
    ("text", "note"),
    [
        ('Hi <tool_call>{"name": "f", "arguments": {}}', "is not closed by </tool_call>"),
        ('<tool_call>{"name": "f", "arguments": {"a": "unterminated', "is not closed"),
        ("<tool_call>get_weather(city='Rome')</tool_call>", "is not followed by a JSON object"),
        ('<tool_call>{"name": "f"} trailing</tool_call>', "is not closed by </tool_call> after"),
        ('<tool_call>{"name": "f", "arguments": {}</tool_call>', "is not closed"),
        ('<tool_call>{"name": f}</tool_call>', "its JSON is invalid"),
        ('<tool_call>{"arguments": {}}</tool_call>', "no string name"),
        ("<tool_call>[]</tool_call>", "empty list"),
        ("<tool_call>[1]</tool_call>", "not a {name, arguments} object"),
        ("<tool_call>", "is not closed"),
    ],
)
def test_malformed_blocks_stay_in_content_with_a_note(text: str, note: str) -> None:
    message = parse(text)
    assert message.tool_calls == []
    assert message.content == text.strip()
    assert len(message.notes) == 1 and note in message.notes[0]
    assert message.raw_content == text


def test_a_malformed_block_does_not_hide_the_next_one() -> None:
    text = '<tool_call>oops</tool_call> <tool_call>{"name": "g"}</tool_call>'
    message = parse(text)
    assert calls(message) == [("g", {})]
    assert message.content == "<tool_call>oops</tool_call>"
    assert message.notes == [
        "the <tool_call> block at offset 0 is not followed by a JSON object; kept as content"
    ]


def test_non_json_string_arguments_are_kept_with_a_note() -> None:
    message = parse('<tool_call>{"name": "f", "arguments": "city=Rome"}</tool_call>')
    assert calls(message) == [("f", "city=Rome")]
    assert message.notes == [
        "tool call 0 (f): the arguments are a string that is not JSON; kept as the string"
    ]


def test_partial_tag_text_is_content() -> None:
    assert parse("a <tool_ca").content == "a <tool_ca"
    assert parse("x < y and <tool>").content == "x < y and <tool>"


def test_the_formatter_round_trip() -> None:
    # Parse a tool call, send it back as the assistant turn: the prompt shows the call as
    # the model wrote it (docs/granite4.md, "The tool-call round trip").
    formatter = get_formatter("granite4:tiny-h")
    output = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    message = formatter.parse(output)
    request = {
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            message.to_openai(),
            {"role": "tool", "tool_call_id": message.tool_calls[0].id, "content": "18 C"},
        ],
        "tools": [{"name": "get_weather"}],
    }
    prompt = formatter.format(request)
    assert (
        "<|start_of_role|>assistant<|end_of_role|>" + output + "<|end_of_text|>\n"
        "<|start_of_role|>user<|end_of_role|>\n<tool_response>\n18 C\n</tool_response>"
        "<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>"
    ) in prompt
