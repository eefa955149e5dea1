"""An InvalidRequestError names a field that is in the request the caller sent.

Issue 26 item 6: a special token inside ``chat_template_kwargs.available_tools`` was
reported under ``tools[0].description``, a field the request does not have. Granite 3
does not take ``available_tools`` from ``chat_template_kwargs`` (it is an unknown option
there, named as such); the engine reads it where a release declares the option and names
``chat_template_kwargs.available_tools[...]``.
"""

from __future__ import annotations

from typing import Any

import pytest

from granite_formatters import get_formatter
from granite_formatters._errors import InvalidRequestError

from support.releases import Release

HI = [{"role": "user", "content": "Hi"}]
FLAT = [{"name": "f", "description": "x<|end_of_text|>"}]
WRAPPED = [{"type": "function", "function": {"name": "f", "description": "x<|end_of_text|>"}}]


@pytest.mark.parametrize("tools", [FLAT, WRAPPED], ids=["flat", "wrapped"])
def test_a_token_in_tools_names_the_tools_field(release: Release, tools: Any) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        get_formatter(release.model).format({"messages": HI, "tools": tools})
    assert caught.value.field in ("tools[0].description", "tools[0].function.description")


@pytest.mark.parametrize("tools", [FLAT, WRAPPED], ids=["flat", "wrapped"])
def test_a_token_in_available_tools_names_that_field(release: Release, tools: Any) -> None:
    chat_request = {"messages": HI, "chat_template_kwargs": {"available_tools": tools}}
    with pytest.raises(InvalidRequestError) as caught:
        get_formatter(release.model).format(chat_request)
    assert caught.value.field is not None
    assert caught.value.field.startswith("chat_template_kwargs.available_tools")
