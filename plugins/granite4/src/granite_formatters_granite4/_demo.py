"""What ``granite-format demo`` shows for Granite 4.0 and 4.1:
a request with one tool, answered by a tool call.
"""

from __future__ import annotations

from granite_formatters.records import Demo
from granite_formatters.samples import SAMPLE_DAY, TOOL_REQUEST

__all__ = ["DEMO"]

DEMO = Demo(
    request=TOOL_REQUEST,
    output=(
        "Let me check the current weather.\n"
        "<tool_call>\n"
        '{"name": "get_current_weather", "arguments": {"city": "Paris"}}\n'
        "</tool_call>"
    ),
    today=SAMPLE_DAY,
)
