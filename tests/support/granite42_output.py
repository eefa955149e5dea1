"""What the Granite 4.2 output tests share: a request's weather tool, and a stream
parse whose deltas are checked to add up to its message."""

from __future__ import annotations

from typing import Any

from granite_formatters import get_formatter
from granite_formatters._types import AssistantMessage

#: One tool with a parameter of each type the output tests read.
WEATHER_TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": "integer"},
                    "metric": {"type": "boolean"},
                    "where": {"type": "object"},
                },
            },
        },
    }
]


def streamed(model: str, pieces: list[Any], request: dict[str, Any]) -> AssistantMessage:
    """``pieces`` (text or UTF-8 bytes) fed to a stream parser of ``model``: its message,
    once the deltas are checked to add up to it and the first to carry the role."""
    parser = get_formatter(model).stream_parser(request)
    deltas = []
    for piece in pieces:
        deltas += parser.feed(piece)
    deltas += parser.close()
    message = parser.message
    assert message is not None
    assert "".join(d.reasoning_content or "" for d in deltas) == (message.reasoning_content or "")
    assert "".join(d.content or "" for d in deltas) == message.content
    assert [c.name for d in deltas for c in d.tool_calls] == [c.name for c in message.tool_calls]
    assert deltas[0].role == "assistant"
    return message
