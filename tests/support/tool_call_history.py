"""Shared checks: a past assistant tool call is accepted by the default special-token policy.

Each plugin's ``test_tool_call_history.py`` runs these with its own model id.
"""

from __future__ import annotations

import datetime

import pytest

import granite_formatters
from granite_formatters._errors import InvalidRequestError

CALL = '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
TODAY = datetime.date(2025, 4, 16)

#: ``(assistant turn content, role)`` pairs the default policy must still reject.
STILL_REJECTED = [
    ("Sure. " + CALL, "assistant"),  # not at the start: not the model's tool-call turn
    (CALL + "<|end_of_text|>", "assistant"),  # another token after it
    (CALL, "user"),  # only the assistant writes tool calls
]


def request(content: str, role: str = "assistant") -> dict[str, object]:
    return {
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {"role": role, "content": content},
            {"role": "tool", "content": '{"temp": 21}'},
        ],
        "tools": [{"name": "get_weather", "parameters": {"type": "object"}}],
    }


def check_leading_tool_call_renders_verbatim(model: str) -> None:
    formatter = granite_formatters.get_formatter(model)
    for content in (CALL, "\n" + CALL):
        prompt = formatter.format(request(content), today=TODAY)
        assert prompt == formatter.format(request(content), today=TODAY, special_tokens="keep")
        assert f"<|start_of_role|>assistant<|end_of_role|>{content}<|end_of_text|>\n" in prompt


def check_still_rejected(model: str, content: str, role: str) -> None:
    formatter = granite_formatters.get_formatter(model)
    with pytest.raises(InvalidRequestError, match=r"messages\[1\]\.content"):
        formatter.format(request(content, role), today=TODAY)
