"""A past assistant tool call (`<|tool_call|>[...]`) is accepted by the default special-token policy."""

from __future__ import annotations

import datetime

import pytest

import granite_formatters
from granite_formatters.errors import InvalidRequestError

MODEL = "granite-3.2-8b-instruct"
CALL = '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]'


def request(assistant_content: str, role: str = "assistant") -> dict[str, object]:
    return {
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {"role": role, "content": assistant_content},
            {"role": "tool", "content": '{"temp": 21}'},
        ],
        "tools": [{"name": "get_weather", "parameters": {"type": "object"}}],
    }


def test_leading_tool_call_in_assistant_history_renders_verbatim() -> None:
    formatter = granite_formatters.get_formatter(MODEL)
    today = datetime.date(2025, 4, 16)
    for content in (CALL, "\n" + CALL):
        prompt = formatter.format(request(content), today=today)
        assert prompt == formatter.format(request(content), today=today, special_tokens="keep")
        assert f"<|start_of_role|>assistant<|end_of_role|>{content}<|end_of_text|>\n" in prompt


@pytest.mark.parametrize(
    ("content", "role"),
    [
        ("Sure. " + CALL, "assistant"),  # not at the start: not the model's tool-call turn
        (CALL + "<|end_of_text|>", "assistant"),  # another token after it
        (CALL, "user"),  # only the assistant writes tool calls
    ],
)
def test_other_special_tokens_are_still_rejected(content: str, role: str) -> None:
    formatter = granite_formatters.get_formatter(MODEL)
    with pytest.raises(InvalidRequestError, match=r"messages\[1\]\.content"):
        formatter.format(request(content, role), today=datetime.date(2025, 4, 16))
