"""The agent loop on Granite 4 (issue 14): parse → ``to_openai()`` → append → tool result → format.

The second prompt must be exactly what the official template renders for the conversation
with the model's call in it (Granite 4 templates render ``tool_calls``), and it must show
the calls the model wrote, parsed from real recorded outputs.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import granite_formatters

from .test_granite4_output import AGENT_CPP_SAMPLE, LLAMA_CPP_SAMPLE, VLLM_SAMPLE
from support import oracle

pytestmark = oracle.needs_shared

CALCULATOR = {
    "type": "function",
    "function": {
        "name": "calculator",
        "description": "Add, subtract, multiply or divide two numbers",
        "parameters": {"type": "object", "properties": {"a": {}, "b": {}, "operation": {}}},
    },
}
MODELS = {"4.0": "granite-4.0-h-tiny", "4.1": "granite-4.1-8b"}


@pytest.mark.parametrize("release", sorted(MODELS))
@pytest.mark.parametrize("output", [AGENT_CPP_SAMPLE, LLAMA_CPP_SAMPLE, VLLM_SAMPLE])
def test_second_turn_is_the_template_render_of_the_conversation(release: str, output: str) -> None:
    formatter = granite_formatters.get_formatter(MODELS[release])
    request: dict[str, Any] = {
        "messages": [{"role": "user", "content": "What is 3 + 4?"}],
        "tools": [CALCULATOR],
    }
    first = formatter.format(request)
    assert first == oracle.render(release, request)

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
    assert second == oracle.render(release, request)
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
