"""Stream deltas in OpenAI's shape: role first, finish reason last."""

from __future__ import annotations

import json
from typing import Any

import pytest

from granite_formatters import get_formatter
from granite_formatters._streaming import Delta
from granite_formatters.granite3 import Granite3AssistantMessage

G33 = get_formatter("granite-3.3-8b-instruct", Granite3AssistantMessage)
TOOLS = {"messages": [{"role": "user", "content": "q"}], "tools": [{"name": "f"}]}


def _run(output: str, request: dict[str, Any] | None = None, **close: Any) -> list[Delta]:
    parser = G33.stream_parser(request)
    deltas = [d for i in range(0, len(output), 4) for d in parser.feed(output[i : i + 4])]
    return deltas + parser.close(**close)


def test_first_delta_has_the_role_and_last_the_finish_reason() -> None:
    deltas = _run("Hello there.")
    assert deltas[0].role == "assistant" and deltas[0].to_openai()["role"] == "assistant"
    assert all(d.role is None for d in deltas[1:])
    assert deltas[-1].finish_reason == "stop"
    assert all(d.finish_reason is None for d in deltas[:-1])
    assert deltas[-1].to_openai_choice(2) == {
        "index": 2,
        "delta": deltas[-1].to_openai(),
        "finish_reason": "stop",
    }


def test_tool_calls_finish_with_tool_calls() -> None:
    deltas = _run('<|tool_call|>[{"name": "f", "arguments": {}}]', TOOLS)
    assert deltas[-1].finish_reason == "tool_calls"


@pytest.mark.parametrize("output", ["", "Cut off mid-sent", '<|tool_call|>[{"name": "f"}]'])
def test_the_caller_says_the_backend_stopped_for_length(output: str) -> None:
    deltas = _run(output, TOOLS, finish_reason="length")
    assert deltas[0].role == "assistant"
    assert deltas[-1].finish_reason == "length"


def test_empty_output_still_gives_role_and_finish_reason() -> None:
    assert _run("") == [Delta(role="assistant", finish_reason="stop")]


def test_a_second_close_gives_nothing() -> None:
    parser = G33.stream_parser()
    parser.feed("x")
    assert parser.close()[-1].finish_reason == "stop"
    assert parser.close() == []


def test_stop_reason_is_what_the_caller_passes() -> None:
    assert G33.parse("Hi.").stop_reason is None
    processor = G33.output_processor
    assert processor.transform("Hi.", stop_reason="</s>").stop_reason == "</s>"  # type: ignore[call-arg]
    parser = G33.stream_parser()
    parser.feed("Hi.")
    parser.close(stop_reason="<|end_of_text|>")
    assert parser.message is not None
    assert parser.message.stop_reason == "<|end_of_text|>"
    json.dumps(parser.message.to_openai())
