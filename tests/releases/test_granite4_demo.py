"""`granite-format demo` shows Granite 4: its own request (tools, no Granite 3 controls)."""

from __future__ import annotations

import io
import json

import pytest

from granite_formatters import UnknownModelError, cli, get_formatter


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


def test_granite_42_names_say_that_42_is_another_format() -> None:
    for name in ("granite4.2:8b", "granite-4.2-8b", "ibm-granite/granite-4.2-8b"):
        with pytest.raises(UnknownModelError) as caught:
            get_formatter(name)
        first = str(caught.value).splitlines()[0]
        assert "Granite 4.2 uses a different prompt format" in first
        assert caught.value.suggestions == ()
    # A 4.1 name is not caught by the 4.2 rule.
    assert get_formatter("granite4.1:8b").model_id == "granite-4.1-8b"
