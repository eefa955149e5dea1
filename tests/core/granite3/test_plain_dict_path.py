"""The plain-dict fast path and the tools memo of the Granite 3 input processor.

The differential tests (``tests/releases/test_input_differential.py``) show both
paths give the same prompt or the same error on random requests; these tests show which
path a request takes, so that the differential tests cannot pass by never using one.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from granite_formatters import types
from granite_formatters.granite3 import Granite3InputProcessor, Granite3PromptFormat
from granite_formatters.granite3._views import plain_request

DAY = datetime.date(2025, 4, 16)
TOOL = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
RAG = {
    "messages": [{"role": "user", "content": "Q?"}, {"role": "assistant", "content": "A"}],
    "documents": [{"doc_id": "1", "text": "T", "title": "x", "source": "web"}, {"text": "U"}],
    "tools": [TOOL, {"name": "g"}],
    "chat_template_kwargs": {"controls": {"citations": True, "length": "short"}},
    "model": "granite",
    "temperature": 0.2,
}


class Processor(Granite3InputProcessor):
    prompt_format = Granite3PromptFormat(
        release="Granite 3.x test",
        tools_instruction=" T",
        tools_and_documents_instruction=" TD",
        citations_instruction=" C",
        hallucinations_instruction=" H",
    )


def test_a_plain_request_is_rendered_without_validation(monkeypatch: pytest.MonkeyPatch) -> None:
    expected = Processor().transform(RAG, today=DAY)

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the plain request was validated")

    monkeypatch.setattr(types, "coerce_request", forbidden)
    assert plain_request(RAG) is not None
    assert Processor().transform(RAG, today=DAY) == expected


@pytest.mark.parametrize(
    "change",
    [
        {"extra_body": {}},
        {"bogus": 1},
        {"model": 1},
        {"messages": [{"role": "user", "content": [{"type": "text", "text": "x"}]}]},
        {"messages": [{"role": "user", "content": None}]},
        {"messages": [{"role": "user", "content": "x", "name": 1}]},
        {"messages": [{"role": "assistant", "content": "", "tool_calls": [("f", "{}")]}]},
        {"messages": []},
        {"tools": [{"type": "other", "function": {"name": "f"}}]},
        {"tools": [{1: "x", "name": "f"}]},
        {"documents": [{"doc_id": True, "text": "t"}]},
        {"documents": [{"text": "t", "title": 1}]},
        {"chat_template_kwargs": {"documents": []}},
        {"chat_template_kwargs": {"thinking": 1}},
        {"chat_template_kwargs": {"controls": {"length": "medium"}}},
    ],
)
def test_anything_unusual_takes_the_validated_path(change: dict[str, Any]) -> None:
    assert plain_request({**RAG, **change}) is None


def test_the_tools_memo_tells_true_from_1() -> None:
    processor = Processor()
    first = processor.transform({"messages": RAG["messages"], "tools": [{"name": "f", "x": True}]})
    second = processor.transform({"messages": RAG["messages"], "tools": [{"name": "f", "x": 1}]})
    assert '"x": true' in first and '"x": 1' in second


def test_the_tools_memo_serves_a_repeated_list_from_the_cache() -> None:
    processor = Processor()
    request = {"messages": RAG["messages"], "tools": [TOOL]}
    prompt = processor.transform(request, today=DAY)
    entries = processor._tools_json._entries
    assert len(entries) == 1
    assert processor.transform(request, today=DAY) == prompt
    assert len(entries) == 1
