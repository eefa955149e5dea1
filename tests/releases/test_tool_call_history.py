"""A past assistant tool call (`<|tool_call|>[...]`) is accepted by the default special-token policy."""

from __future__ import annotations

import pytest

from support import tool_call_history
from support.releases import Release

APPLIES_TO = "json-list-tool-calls"


def test_leading_tool_call_in_assistant_history_renders_verbatim(release: Release) -> None:
    tool_call_history.check_leading_tool_call_renders_verbatim(release.model)


@pytest.mark.parametrize(("content", "role"), tool_call_history.STILL_REJECTED)
def test_other_special_tokens_are_still_rejected(release: Release, content: str, role: str) -> None:
    tool_call_history.check_still_rejected(release.model, content, role)
