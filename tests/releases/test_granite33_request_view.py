"""Granite 3.3 reads the request as its prompt does (issue 43, item 2): ``thinking`` in
``extra_body`` and in JSON requests (already read so through the Granite 3 request type:
kept as guards), and a continued final message, read as content (new)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from granite_formatters import get_formatter

HI = [{"role": "user", "content": "Hi"}]
ANSWER = "<think>a</think><response>b</response>"
OFF = {"chat_template_kwargs": {"thinking": False}}


@pytest.mark.parametrize(
    "request_",
    [
        {"messages": HI, "extra_body": OFF},
        json.dumps({"messages": HI, "extra_body": OFF}),
        json.dumps({"messages": HI, **OFF}).encode(),
    ],
    ids=["extra_body", "json-extra_body", "bytes"],
)
def test_thinking_off_in_any_shape_reads_no_reasoning(request_: Any) -> None:
    formatter = get_formatter("granite-3.3-8b-instruct")
    assert "<think>" not in formatter.format(request_, today=None)
    message = formatter.parse(ANSWER, request_)
    assert (message.content, message.reasoning_content) == (ANSWER, None)


def test_a_continued_final_message_reads_no_reasoning() -> None:
    formatter = get_formatter("granite-3.3-8b-instruct")
    request = {"messages": [*HI, {"role": "assistant", "content": "So"}]}
    message = formatter.parse(ANSWER, {**request, "continue_final_message": True})
    assert (message.content, message.reasoning_content) == (ANSWER, None)
    assert formatter.parse(ANSWER, request).reasoning_content == "a"
