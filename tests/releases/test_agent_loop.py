"""The agent loop: parse → ``to_openai()`` → append → tool result → format.

For each release whose model writes ``<tool_call>`` JSON blocks (their templates render
``tool_calls``): the second prompt must be exactly what the official template renders
for the conversation with the model's call in it, and it must show the calls the model
wrote, parsed from real recorded outputs (:mod:`support.json_block_samples`). The
Granite 3 loop, whose templates drop ``tool_calls``, is in
``tests/core/granite3/test_tool_call_loop.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import granite_formatters

from support import oracle
from support.json_block_samples import AGENT_CPP_SAMPLE, LLAMA_CPP_SAMPLE, VLLM_SAMPLE
from support.releases import Release

APPLIES_TO = "json-tool-call-blocks"

pytestmark = oracle.needs_shared

CALCULATOR = {
    "type": "function",
    "function": {
        "name": "calculator",
        "description": "Add, subtract, multiply or divide two numbers",
        "parameters": {"type": "object", "properties": {"a": {}, "b": {}, "operation": {}}},
    },
}


@pytest.mark.parametrize("output", [AGENT_CPP_SAMPLE, LLAMA_CPP_SAMPLE, VLLM_SAMPLE])
def test_second_turn_is_the_template_render_of_the_conversation(
    release: Release, output: str
) -> None:
    formatter = granite_formatters.get_formatter(release.model)
    request: dict[str, Any] = {
        "messages": [{"role": "user", "content": "What is 3 + 4?"}],
        "tools": [CALCULATOR],
    }
    first = formatter.format(request)
    assert first == oracle.render(release.version, request)

    message = formatter.parse(output, request)
    assert message.tool_calls, "the recorded output holds tool calls"
    assistant = message.to_openai()
    json.dumps(assistant)  # what a client would send back over HTTP
    request["messages"].append(assistant)
    for call in assistant["tool_calls"]:
        request["messages"].append(
            {"role": "tool", "tool_call_id": call["id"], "content": '{"result": 7}'}
        )

    second = formatter.format(request)
    assert second == oracle.render(release.version, request)
    assert second.startswith(first[: -len("<|start_of_role|>assistant<|end_of_role|>")])
    # The model sees each call it made, with its arguments decoded once, and the results.
    for call in message.tool_calls:
        arguments = call.to_openai()["function"]["arguments"]
        assert (
            f'<tool_call>\n{{"name": "{call.name}", "arguments": {arguments}}}\n</tool_call>'
            in second
        )
    assert second.count("<tool_response>") == len(message.tool_calls)
    assert second.endswith(
        "</tool_response><|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>"
    )
