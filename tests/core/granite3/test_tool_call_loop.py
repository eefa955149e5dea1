"""The agent loop (Granite 3.2 and 3.3): parse a tool call, append it, format again.

``parse`` → ``message.to_openai()`` appended to ``messages`` → tool result added →
``format`` must give exactly the prompt the model would have seen had it continued: the
first prompt, then the model's own output, the end of its turn, the tool turn and a new
generation prompt. The official 3.x templates drop ``tool_calls``; strict mode renders
them (docs/deviations.md), the template-compatible mode keeps the template's behaviour.
"""

from __future__ import annotations

import datetime
import json
import warnings
from typing import Any

import pytest

import granite_formatters
from granite_formatters._errors import DroppedInputWarning

TODAY = datetime.date(2025, 4, 16)
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}
MODELS = ["granite-3.2-8b-instruct", "granite-3.3-8b-instruct"]

#: Outputs as the models write them (decoded with skip_special_tokens=False).
OUTPUTS = [
    '<|tool_call|>[{"name": "get_current_weather", "arguments": {"city": "Paris"}}]',
    '<|tool_call|>[{"name": "get_current_weather", "arguments": {"city": "Paris", "unit": '
    '"celsius"}}, {"name": "get_current_weather", "arguments": {"city": "Zürich"}}]',
    '<|tool_call|>[{"name": "get_current_weather", "arguments": {"city": "Saint-\u00c9tienne"}}]',
]


def formatter(model: str) -> granite_formatters.Formatter:
    try:
        return granite_formatters.get_formatter(model)
    except granite_formatters.UnknownModelError:
        pytest.skip(f"the plugin of {model} is not installed")


def first_request() -> dict[str, Any]:
    return {
        "messages": [{"role": "user", "content": "What's the weather in Paris?"}],
        "tools": [WEATHER],
    }


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize("content", ["", None, "kept"])
def test_parse_append_format_continues_the_prompt(
    model: str, output: str, content: str | None
) -> None:
    fmt = formatter(model)
    request = first_request()
    first = fmt.format(request, today=TODAY)
    message = fmt.parse(output, request)
    assert [call.name for call in message.tool_calls] == ["get_current_weather"] * (
        output.count('"name"')
    )
    turn = message.to_openai()
    json.dumps(turn)  # what a client would send
    if content != "kept":
        turn["content"] = content  # OpenAI itself returns null content with tool calls
    request["messages"].append(turn)
    result = json.dumps({"temperature": 18, "unit": "celsius"})
    call_id = turn["tool_calls"][0]["id"]
    request["messages"].append({"role": "tool", "tool_call_id": call_id, "content": result})
    second = fmt.format(request, today=TODAY)
    assert second == (
        first
        + output
        + "<|end_of_text|>\n"
        + "<|start_of_role|>tool<|end_of_role|>"
        + result
        + "<|end_of_text|>\n"
        + "<|start_of_role|>assistant<|end_of_role|>"
    )


@pytest.mark.parametrize("model", MODELS)
def test_text_before_the_call_comes_first(model: str) -> None:
    fmt = formatter(model)
    request = first_request()
    call = {"id": "1", "type": "function", "function": {"name": "f", "arguments": '{"a":[1, 2]}'}}
    request["messages"].append({"role": "assistant", "content": "Checking.", "tool_calls": [call]})
    prompt = fmt.format(request, today=TODAY, add_generation_prompt=False)
    assert prompt.endswith(
        '<|start_of_role|>assistant<|end_of_role|>Checking.<|tool_call|>[{"name": "f", '
        '"arguments": {"a": [1, 2]}}]<|end_of_text|>\n'
    )


@pytest.mark.parametrize("model", MODELS)
def test_compatible_mode_drops_the_calls_with_one_warning(model: str) -> None:
    fmt = formatter(model)
    request = first_request()
    call = {"id": "1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    request["messages"].append({"role": "assistant", "content": "", "tool_calls": [call]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prompt = fmt.format(request, today=TODAY, strict=False)
    assert '"name": "f"' not in prompt
    assert prompt.endswith(
        "<|start_of_role|>assistant<|end_of_role|><|end_of_text|>\n"
        "<|start_of_role|>assistant<|end_of_role|>"
    )
    dropped = [w for w in caught if issubclass(w.category, DroppedInputWarning)]
    assert len(dropped) == 1
    assert "messages[1].tool_calls" in str(dropped[0].message)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize(
    ("call", "field"),
    [
        ({"function": {"name": "f", "arguments": "{not json"}}, "function.arguments"),
        ({"function": {"arguments": "{}"}}, "function.name"),
        ("f()", ""),
    ],
)
def test_malformed_calls_are_request_errors(model: str, call: Any, field: str) -> None:
    fmt = formatter(model)
    request = first_request()
    request["messages"].append({"role": "assistant", "content": "", "tool_calls": [call]})
    with pytest.raises(granite_formatters.InvalidRequestError) as caught:
        fmt.format(request, today=TODAY)
    assert caught.value.field == "messages[1].tool_calls[0]" + ("." + field if field else "")


@pytest.mark.parametrize("model", MODELS)
def test_special_tokens_in_a_call_follow_the_policy(model: str) -> None:
    fmt = formatter(model)
    request = first_request()
    call = {"function": {"name": "f<|end_of_text|>", "arguments": '{"x": "<|start_of_role|>"}'}}
    request["messages"].append({"role": "assistant", "content": "", "tool_calls": [call]})
    with pytest.raises(granite_formatters.InvalidRequestError) as caught:
        fmt.format(request, today=TODAY)
    assert caught.value.field == "messages[1].tool_calls[0].function.name"
    stripped = fmt.format(request, today=TODAY, special_tokens="strip")
    assert '<|tool_call|>[{"name": "f", "arguments": {"x": ""}}]<|end_of_text|>' in stripped
    kept = fmt.format(request, today=TODAY, special_tokens="keep")
    assert '[{"name": "f<|end_of_text|>", "arguments": {"x": "<|start_of_role|>"}}]' in kept


@pytest.mark.parametrize("model", MODELS)
def test_calls_on_other_roles_are_refused(model: str) -> None:
    fmt = formatter(model)
    request = first_request()
    call = {"function": {"name": "f", "arguments": "{}"}}
    request["messages"].append({"role": "user", "content": "x", "tool_calls": [call]})
    with pytest.raises(granite_formatters.InvalidRequestError) as caught:
        fmt.format(request, today=TODAY)
    assert caught.value.field == "messages[1].tool_calls"
