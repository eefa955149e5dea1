"""One whitespace rule for every release's parser: the content's (and the reasoning's)
leading and trailing Unicode whitespace is removed, as :meth:`str.strip` removes it."""

from __future__ import annotations

from typing import Any

import pytest

from granite_formatters import get_formatter

from support.releases import Release

SPACES = "\u2003\u00a0\x0c\u2028 \n"
USER = [{"role": "user", "content": "Hi"}]


def _request(release: Release) -> dict[str, Any]:
    if release.has("opened-think"):  # (thinking off: the output is the answer)
        return {"messages": USER, "chat_template_kwargs": {"enable_thinking": False}}
    return {"messages": USER}


@pytest.mark.parametrize("size", [0, 1, 2, 5])
def test_surrounding_unicode_whitespace_is_trimmed(release: Release, size: int) -> None:
    formatter = get_formatter(release.model)
    request = _request(release)
    output = SPACES + "Hello\u2003there." + SPACES
    if size == 0:
        message = formatter.parse(output, request)
        content = message.content
    else:
        parser = formatter.stream_parser(request)
        pieces = [output[i : i + size] for i in range(0, len(output), size)]
        deltas = [delta for piece in pieces for delta in parser.feed(piece)]
        deltas += parser.close()
        streamed = parser.message
        assert streamed is not None
        message = streamed
        content = "".join(delta.content or "" for delta in deltas)
    assert content == message.content == "Hello\u2003there."
