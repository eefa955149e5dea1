"""What every release reads from a tool-call object (``granite_formatters._toolcalljson``).

One output works for every release that reads JSON tool-call objects: ``<tool_call>``
then a JSON object then ``</tool_call>`` (Granite 4.0/4.1's syntax, which the 3.x parsers
accept too; a release declaring another tool-call syntax is skipped). The arguments
come from ``"arguments"``, else ``"parameters"``; any other key is named in a note (it
used to vanish: vLLM's ``test_parser_invalid_input``); lone surrogates are replaced, so
the message always serialises (Granite 4 used to give a message whose JSON dump raised).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from granite_formatters import get_formatter
from granite_formatters.syntax import JSON_BLOCKS

from support.releases import Release, with_feature

UNREAD_ARGS = (
    'tool call 0 (foo): the arguments are {} (no "arguments" key); the key(s) "args" are '
    "not read (only raw_content has them)"
)

CASES: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "args is not an alias": (
        '<tool_call> {"name": "foo", "args": {"a": 1}} </tool_call>',
        {},
        [UNREAD_ARGS],
    ),
    "parameters is an alias": (
        '<tool_call> {"name": "foo", "parameters": {"a": 1}} </tool_call>',
        {"a": 1},
        [],
    ),
    "arguments win over parameters": (
        '<tool_call>{"parameters": {"b": 2}, "name": "foo", "arguments": {"a": 1}}</tool_call>',
        {"a": 1},
        [
            'tool call 0 (foo): the arguments are from "arguments"; the key(s) "parameters" '
            "are not read (only raw_content has them)"
        ],
    ),
    "other keys are named": (
        '<tool_call>{"name": "foo", "arguments": {}, "x": 1, "y": [2]}</tool_call>',
        {},
        [
            'tool call 0 (foo): the arguments are from "arguments"; the key(s) "x", "y" are '
            "not read (only raw_content has them)"
        ],
    ),
    "a lone surrogate escape": (
        '<tool_call>{"name": "f\\udfff", "arguments": {"u": "\\ud83c", "\\udc00": 1}}</tool_call>',
        {"u": "\ufffd", "\ufffd": 1},
        ["replaced lone surrogates in a tool call with U+FFFD"],
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_what_is_read_from_a_tool_call_object(release: Release, case: str) -> None:
    formatter = get_formatter(release.model)
    declared = formatter.release
    if declared is not None and not (
        declared.tool_calls is JSON_BLOCKS or JSON_BLOCKS.open in declared.tool_call_markers
    ):
        pytest.skip(f"Granite {release.version} reads no <tool_call> JSON objects")
    output, arguments, notes = CASES[case]
    processor = formatter.output_processor
    message = processor.transform(output)
    [call] = message.tool_calls
    assert call.arguments == arguments
    assert call.name == ("f\ufffd" if "surrogate" in case else "foo")
    assert message.notes == notes
    assert message.content == ""
    # The message serialises (a lone surrogate made model_dump_json raise).
    assert json.loads(message.model_dump_json())["tool_calls"][0]["name"] == call.name
    openai = json.dumps(message.to_openai(), ensure_ascii=False).encode("utf-8")
    assert json.loads(openai)["tool_calls"][0]["function"]["name"] == call.name
    # Streamed one character at a time: the same message.
    parser = processor.stream_parser(None)
    for character in output:
        parser.feed(character)
    parser.close()
    streamed = parser.message
    assert streamed is not None
    assert [(c.name, c.arguments) for c in streamed.tool_calls] == [(call.name, arguments)]
    assert streamed.notes == notes


@pytest.mark.parametrize("release", with_feature("json-list-tool-calls"), ids=lambda r: r.version)
def test_the_openai_wrapper_names_its_unread_keys_too(release: Release) -> None:
    # (Granite 4 does not read the OpenAI wrapper: such a block stays content, noted.)
    processor = get_formatter(release.model).output_processor
    output = (
        '<|tool_call|>[{"id": "c1", "type": "function", "extra": 1, '
        '"function": {"name": "foo", "arguments": {"a": 1}, "args": 2}}]'
    )
    message = processor.transform(output)
    [call] = message.tool_calls
    assert (call.id, call.arguments) == ("c1", {"a": 1})
    assert message.notes == [
        'tool call 0 (foo): the arguments are from "arguments"; the key(s) "args", "extra" '
        "are not read (only raw_content has them)"
    ]
