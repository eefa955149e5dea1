"""What ``granite-format demo`` shows for Granite 4.2:
a request with one tool, answered by reasoning and an XML tool call.
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
        "The user wants the current weather in Paris, so I call the weather too"
        "l with the city.\n"
        "</think>\n"
        "\n"
        "<tool_call>\n"
        "<function=get_current_weather>\n"
        "<parameter=city>\n"
        "Paris\n"
        "</parameter>\n"
        "</function>\n"
        "</tool_call>"
    ),
    today=datetime.date(2025, 4, 16),
)
