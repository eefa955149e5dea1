"""`granite-format demo` for every release: its sample output is in the release's own
syntax, so the parse interprets all of it (no notes) and finds what the sample holds."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from granite_formatters import _cli as cli

from support import releases
from support.releases import Release


def test_the_demo_sample_is_in_the_releases_syntax(release: Release) -> None:
    out = io.StringIO()
    assert cli.main(["demo", "-m", release.model], stdout=out) == 0
    parsed = json.loads(out.getvalue().split("== Parsed assistant message ==\n", 1)[1])
    assert parsed["notes"] == []
    assert parsed.get("tool_calls") or parsed.get("citations")


#: What a release's demo shows, for a model name of it: the request's model line, a text
#: the request holds, a text it lacks, and the parsed content and tool calls.
DEMOS: dict[str, dict[str, Any]] = {
    # Granite 4: its own request (tools, no Granite 3 controls).
    "4.0": {
        "name": "granite4:tiny-h",
        "model_id": "granite-4.0-h-tiny",
        "shows": "<tools>\n",
        "lacks": "controls",
        "content": "Let me check the current weather.",
        "tool_calls": [("get_current_weather", {"city": "Paris"})],
    },
}


@pytest.mark.parametrize("release", [releases.release(v) for v in DEMOS], ids=list(DEMOS))
def test_demo_renders_and_parses_the_release_sample(release: Release) -> None:
    demo = DEMOS[release.version]
    out = io.StringIO()
    assert cli.main(["demo", "-m", demo["name"]], stdout=out) == 0
    text = out.getvalue()
    assert f"== Request (bundled example, model {demo['model_id']}) ==" in text
    assert f'"model": "{demo["name"]}"' in text
    assert demo["shows"] in text and demo["lacks"] not in text
    parsed = json.loads(text.split("== Parsed assistant message ==\n", 1)[1])
    assert parsed["content"] == demo["content"]
    assert [(c["name"], c["arguments"]) for c in parsed["tool_calls"]] == demo["tool_calls"]
