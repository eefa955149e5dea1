"""`granite-format demo` shows Granite 4: its own request (tools, no Granite 3 controls)."""

from __future__ import annotations

import io
import json

from granite_formatters import cli


def test_demo_renders_and_parses_a_granite4_tool_call() -> None:
    out = io.StringIO()
    assert cli.main(["demo", "-m", "granite4:tiny-h"], stdout=out) == 0
    text = out.getvalue()
    assert "== Request (bundled example, model granite-4.0-h-tiny) ==" in text
    assert '"model": "granite4:tiny-h"' in text
    assert "<tools>\n" in text and "controls" not in text
    parsed = json.loads(text.split("== Parsed assistant message ==\n", 1)[1])
    assert parsed["content"] == "Let me check the current weather."
    assert [(c["name"], c["arguments"]) for c in parsed["tool_calls"]] == [
        ("get_current_weather", {"city": "Paris"})
    ]
