"""What ``granite-format demo`` shows for Granite 4.2:
a request with one tool, answered by reasoning and an XML tool call.
"""

from __future__ import annotations

from granite_formatters.records import Demo
from granite_formatters.samples import SAMPLE_DAY, TOOL_REQUEST

__all__ = ["DEMO"]

DEMO = Demo(
    request=TOOL_REQUEST,
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
    today=SAMPLE_DAY,
)
