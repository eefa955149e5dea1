"""What ``granite-format demo`` shows for Granite 4.0 and 4.1:
a request with one tool, answered by a tool call.
"""

from __future__ import annotations

import datetime

from granite_formatters.records import Demo

__all__ = ["DEMO"]

DEMO = Demo(
    request={
        "messages": [{"role": "user", "content": "What is the weather like in Paris right now?"}],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_current_weather",
                    "description": "Get the current weather for a city",
                    "parameters": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}},
                        "required": ["city"],
                    },
                },
            }
        ],
    },
    output=(
        "Let me check the current weather.\n"
        "<tool_call>\n"
        '{"name": "get_current_weather", "arguments": {"city": "Paris"}}\n'
        "</tool_call>"
    ),
    today=datetime.date(2025, 4, 16),
)
