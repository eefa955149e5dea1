"""`granite-format demo` for every release: its sample output is in the release's own
syntax, so the parse interprets all of it (no notes) and finds what the sample holds."""

from __future__ import annotations

import io
import json

from granite_formatters import cli

from support.releases import Release


def test_the_demo_sample_is_in_the_releases_syntax(release: Release) -> None:
    out = io.StringIO()
    assert cli.main(["demo", "-m", release.model], stdout=out) == 0
    parsed = json.loads(out.getvalue().split("== Parsed assistant message ==\n", 1)[1])
    assert parsed["notes"] == []
    assert parsed.get("tool_calls") or parsed.get("citations")
